import type { Deregistration } from "@/lib/client/clusters";
import { LocalTime } from "@/components/ui/local-time";

/** The verify step: each check the server re-ran, with a pass/fail mark and its evidence. */
export function VerificationChecks({ verification }: { verification: NonNullable<Deregistration["verification"]> }) {
  return (
    <div className="space-y-3">
      <ul
        aria-label="Verification checks"
        className="divide-y divide-slate-100 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-800"
      >
        {verification.checks.map((c) => (
          <li key={c.key} data-check={c.key} data-ok={c.ok} className="flex gap-3 px-4 py-3 text-sm">
            <span
              aria-hidden
              className={`mt-0.5 flex h-5 w-5 shrink-0 items-center justify-center rounded-full text-xs font-bold ${
                c.ok
                  ? "bg-emerald-100 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300"
                  : "bg-rose-100 text-rose-700 dark:bg-rose-950 dark:text-rose-300"
              }`}
            >
              {c.ok ? "✓" : "✕"}
            </span>
            <span className="min-w-0">
              <span className="font-medium">{c.label}</span>
              <span className="sr-only">{c.ok ? " — passes" : " — fails"}</span>
              <span className="block text-xs text-slate-500 dark:text-slate-400">{c.detail}</span>
            </span>
          </li>
        ))}
      </ul>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Checked <LocalTime iso={verification.checkedAt} /> from the database; every reload runs the checks again.
      </p>
    </div>
  );
}
