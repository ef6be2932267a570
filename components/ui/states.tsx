import type { ReactNode } from "react";

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center rounded-lg border border-dashed border-slate-300 px-6 py-12 text-center dark:border-slate-700">
      <p className="text-sm font-semibold">{title}</p>
      {children && <div className="mt-1 max-w-md text-sm text-slate-600 dark:text-slate-400">{children}</div>}
    </div>
  );
}

export function ErrorState({
  title = "Could not load this",
  message,
  onRetry,
}: {
  title?: string;
  message: string;
  onRetry?: () => void;
}) {
  return (
    <div
      role="alert"
      className="rounded-lg border border-rose-300 bg-rose-50 px-5 py-4 text-sm dark:border-rose-900 dark:bg-rose-950/40"
    >
      <p className="font-semibold text-rose-800 dark:text-rose-300">{title}</p>
      <p className="mt-1 text-rose-700 dark:text-rose-400">{message}</p>
      {onRetry && (
        <button onClick={onRetry} className="mt-3 text-sm font-medium text-rose-800 underline dark:text-rose-300">
          Try again
        </button>
      )}
    </div>
  );
}
