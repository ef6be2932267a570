import type { ReactNode } from "react";

/** A label or label requirement in monospace, e.g. env=prod or region: any. */
export function LabelChip({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <span
      title={title}
      className="inline-flex max-w-full items-center rounded break-words bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300"
    >
      {children}
    </span>
  );
}
