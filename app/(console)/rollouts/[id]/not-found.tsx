import Link from "next/link";

export default function RolloutNotFound() {
  return (
    <div className="flex min-h-[50vh] flex-col items-center justify-center text-center">
      <p className="text-sm font-semibold text-slate-500">404 · Not found</p>
      <h1 className="mt-2 text-xl font-semibold">No rollout with this id</h1>
      <p className="mt-2 max-w-md text-sm text-slate-600 dark:text-slate-400">
        The link may be mistyped; rollouts are never deleted.
      </p>
      <Link href="/rollouts" className="mt-6 text-sm font-medium text-sky-700 underline dark:text-sky-400">
        All rollouts
      </Link>
    </div>
  );
}
