/** "used / max" with a thin bar, so a token near its limit stands out in a long list. */
export function TokenUsesMeter({ used, max }: { used: number; max: number }) {
  const share = max > 0 ? Math.min(1, used / max) : 0;
  const full = used >= max;
  return (
    <div className="flex items-center gap-2">
      <span className="min-w-12 text-right tabular-nums" aria-label={`${used} of ${max} clusters registered`}>
        {used.toLocaleString("en-US")} / {max.toLocaleString("en-US")}
      </span>
      <span aria-hidden className="h-1.5 w-12 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800">
        <span
          className={`block h-full rounded-full ${full ? "bg-amber-500" : "bg-sky-500"}`}
          style={{ width: `${Math.max(share * 100, used > 0 ? 6 : 0)}%` }}
        />
      </span>
    </div>
  );
}
