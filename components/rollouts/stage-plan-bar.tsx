// Mid-tones distinguishable in both themes; stages cycle through them in order.
const STAGE_COLORS = ["bg-violet-500", "bg-sky-500", "bg-teal-500", "bg-amber-500", "bg-rose-500", "bg-indigo-500"];

/** The preview of a rollout plan as one bar split by stage, widths by clusters per stage. */
export function StagePlanBar({ stages, total }: { stages: { id: string; name: string; size: number | null }[]; total: number }) {
  const known = stages.every((s) => s.size !== null) && total > 0;
  return (
    <div>
      <div
        role="img"
        aria-label={
          known
            ? `Plan: ${stages.map((s) => `${s.name} ${s.size} cluster${s.size === 1 ? "" : "s"}`).join(", ")}`
            : "Plan not known yet"
        }
        className="flex h-3 w-full gap-0.5 overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800"
      >
        {known &&
          stages
            .filter((s) => s.size)
            .map((s) => (
              <div
                key={s.id}
                className={`${STAGE_COLORS[stages.indexOf(s) % STAGE_COLORS.length]} h-full`}
                style={{ width: `${((s.size ?? 0) / total) * 100}%` }}
              />
            ))}
      </div>
      <ul aria-hidden className="mt-3 space-y-1.5 text-sm">
        {stages.map((s, i) => (
          <li key={s.id} className="flex items-center gap-2">
            <span className={`h-2.5 w-2.5 shrink-0 rounded-sm ${STAGE_COLORS[i % STAGE_COLORS.length]}`} />
            <span className="min-w-0 flex-1 truncate">{s.name || `stage ${i + 1}`}</span>
            <span className="tabular-nums text-slate-600 dark:text-slate-400">
              {s.size === null || !known ? "—" : `${s.size} cluster${s.size === 1 ? "" : "s"}`}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
