import type { Labels } from "@/lib/domain/labels";
import type { AllowedLabels } from "@/lib/domain/tokens";
import { LabelChip } from "@/components/ui/label-chips";

/** What labels a token lets agents ask for, and the ones it stamps on every cluster. */
export function TokenScopeSummary({ allowed, fixed }: { allowed: AllowedLabels | null; fixed: Labels }) {
  const allowedEntries = allowed ? Object.entries(allowed) : [];
  const fixedEntries = Object.entries(fixed);
  return (
    <div className="flex flex-wrap items-center gap-1">
      {allowed === null ? (
        <span className="text-slate-600 dark:text-slate-400">Any labels</span>
      ) : allowedEntries.length === 0 ? (
        <span className="text-slate-600 dark:text-slate-400" title="Agents may ask for no labels; only the fixed ones apply">
          No agent labels
        </span>
      ) : (
        allowedEntries.map(([key, values]) => (
          <LabelChip key={key} title={values === "*" ? `${key}: any value` : `${key}: ${values.join(", ")}`}>
            {key}
            {values === "*" ? ": any" : values.length === 1 ? `=${values[0]}` : ` ∈ {${values.join(", ")}}`}
          </LabelChip>
        ))
      )}
      {fixedEntries.map(([key, value]) => (
        <span
          key={key}
          title={`Fixed: every cluster registered with this token gets ${key}=${value}`}
          className="inline-flex items-center gap-1 rounded bg-violet-50 px-1.5 py-0.5 font-mono text-xs text-violet-800 ring-1 ring-violet-200 ring-inset dark:bg-violet-950 dark:text-violet-300 dark:ring-violet-900"
        >
          <span className="font-sans text-[10px] font-semibold tracking-wide uppercase opacity-75">fixed</span>
          {key}={value}
        </span>
      ))}
    </div>
  );
}
