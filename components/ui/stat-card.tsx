import type { ReactNode } from "react";

const TONES = {
  neutral: "text-slate-900 dark:text-slate-100",
  green: "text-emerald-700 dark:text-emerald-400",
  amber: "text-amber-700 dark:text-amber-400",
  red: "text-rose-700 dark:text-rose-400",
  blue: "text-sky-700 dark:text-sky-400",
} as const;

/** One number with its label, for the summary rows at the top of the operations pages. */
export function StatCard({
  label,
  value,
  tone = "neutral",
  hint,
  testId,
}: {
  label: string;
  value: ReactNode;
  tone?: keyof typeof TONES;
  hint?: ReactNode;
  testId?: string;
}) {
  return (
    <div
      data-testid={testId}
      className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <p className="text-sm text-slate-600 dark:text-slate-400">{label}</p>
      <p
        className={`mt-1 text-2xl font-semibold tabular-nums ${TONES[tone]}`}
        data-testid={testId ? `${testId}-value` : undefined}
      >
        {value}
      </p>
      {hint && <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{hint}</p>}
    </div>
  );
}
