import type { PodSample } from "@/lib/client/clusters";
import { AfterHydration } from "@/components/ui/local-time";
import { POD_CHART_HEIGHT, PodsFallingChart } from "./pods-falling-chart";

function Figure({ label, value, tone = "", testId }: { label: string; value: string; tone?: string; testId?: string }) {
  return (
    <div>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd data-testid={testId} className={`mt-0.5 text-lg font-semibold tabular-nums ${tone}`}>
        {value}
      </dd>
    </div>
  );
}

/** The drain in numbers (pods now, at start, share moved) over the live chart of pods falling. */
export function WorkloadsPanel({
  pods,
  atStart,
  samples,
}: {
  pods: number | null;
  atStart: number | null;
  samples: PodSample[];
}) {
  const moved = atStart && pods !== null ? Math.max(0, Math.min(100, Math.round(((atStart - pods) / atStart) * 100))) : null;
  return (
    <div className="space-y-3 rounded-md border border-slate-200 p-4 dark:border-slate-800">
      <dl className="grid grid-cols-3 gap-4">
        <Figure
          label="Pods now"
          testId="pods-now"
          value={pods === null ? "—" : pods.toLocaleString("en-US")}
          tone={pods === 0 ? "text-emerald-700 dark:text-emerald-400" : ""}
        />
        <Figure label="At start" testId="pods-at-start" value={atStart === null ? "—" : atStart.toLocaleString("en-US")} />
        <Figure label="Moved off" value={moved === null ? "—" : `${moved} %`} />
      </dl>
      {/* Described with clock times: drawn once hydrated, in a box of the chart's height. */}
      <AfterHydration placeholder={<div style={{ height: POD_CHART_HEIGHT }} />}>
        <PodsFallingChart samples={samples} atStart={atStart} />
      </AfterHydration>
    </div>
  );
}
