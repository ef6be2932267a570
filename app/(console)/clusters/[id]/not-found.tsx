import Link from "next/link";

export default function ClusterNotFound() {
  return (
    <div className="flex flex-col items-center rounded-lg border border-dashed border-slate-300 bg-white px-6 py-16 text-center dark:border-slate-700 dark:bg-slate-900">
      <p className="text-sm font-semibold text-slate-500 dark:text-slate-400">404</p>
      <h1 className="mt-2 text-lg font-semibold">This cluster is not in the fleet</h1>
      <p className="mt-2 max-w-md text-sm text-slate-600 dark:text-slate-400">
        It may have been deregistered and removed, or the link is mistyped.
      </p>
      <Link href="/clusters" className="mt-6 text-sm font-medium text-sky-700 underline dark:text-sky-400">
        Back to all clusters
      </Link>
    </div>
  );
}
