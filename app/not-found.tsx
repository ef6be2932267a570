import Link from "next/link";

export default function NotFound() {
  return (
    <main className="flex min-h-[60vh] flex-col items-center justify-center text-center">
      <p className="text-sm font-semibold text-slate-500">404</p>
      <h1 className="mt-2 text-xl font-semibold">Nothing here</h1>
      <Link href="/" className="mt-6 text-sm font-medium text-sky-700 underline dark:text-sky-400">
        Back to the overview
      </Link>
    </main>
  );
}
