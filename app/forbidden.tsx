import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="flex min-h-[60vh] flex-col items-center justify-center text-center">
      <p className="text-sm font-semibold text-rose-600">403 · Forbidden</p>
      <h1 className="mt-2 text-xl font-semibold">Your role cannot open this page</h1>
      <p className="mt-2 max-w-md text-sm text-slate-600 dark:text-slate-400">Ask an admin for a higher role if you need it.</p>
      <div className="mt-6 flex gap-6 text-sm font-medium">
        <Link href="/access" className="text-sky-700 underline dark:text-sky-400">
          See your access
        </Link>
        <Link href="/" className="text-sky-700 underline dark:text-sky-400">
          Back to the overview
        </Link>
      </div>
    </main>
  );
}
