type Entry = { name?: unknown; value?: unknown; color?: string; stroke?: string; fill?: string };

/** Tooltip content styled like the console (the library's default is white in dark mode too). */
export function ChartTooltip({
  active,
  payload,
  label,
  title,
  value,
}: {
  active?: boolean;
  payload?: readonly Entry[];
  label?: unknown;
  title: (label: unknown) => string;
  value?: (v: number, name: string) => string;
}) {
  const rows = (payload ?? []).filter((p) => typeof p.value === "number");
  if (!active || rows.length === 0) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-lg dark:border-slate-700 dark:bg-slate-900">
      <p className="font-medium text-slate-900 dark:text-slate-100">{title(label)}</p>
      <ul className="mt-1 space-y-0.5">
        {rows.map((p) => {
          const name = String(p.name ?? "");
          return (
            <li key={name} className="flex items-center gap-2 text-slate-600 dark:text-slate-300">
              <span aria-hidden className="h-2 w-2 rounded-sm" style={{ background: p.color ?? p.stroke ?? p.fill }} />
              <span>{name}</span>
              <span className="ml-auto pl-3 font-medium tabular-nums text-slate-900 dark:text-slate-100">
                {value ? value(p.value as number, name) : String(p.value)}
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
