import type { RoleAction } from "@/lib/contracts/role-reach";
import { byArea } from "@/lib/contracts/role-reach";

/**
 * What a role reaches, by area: each area a disclosure (a native <details>, so keyboard and
 * screen readers work as they do everywhere) listing what it lets you read and change.
 */
export function RoleReachList({ actions, label }: { actions: readonly RoleAction[]; label: string }) {
  if (!actions.length) return <p className="text-sm text-slate-600 dark:text-slate-400">Nothing.</p>;
  return (
    <ul
      aria-label={label}
      className="divide-y divide-slate-200 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-800"
    >
      {byArea(actions).map(({ area, actions: list }) => {
        const reads = list.filter((a) => a.reads);
        const changes = list.filter((a) => !a.reads);
        return (
          <li key={area}>
            <details className="group">
              <summary className="flex cursor-pointer items-center justify-between gap-3 px-3 py-2 text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-sky-600 dark:hover:bg-slate-800/60">
                <span className="font-medium">{area}</span>
                <span className="text-xs text-slate-500 dark:text-slate-400">
                  {reads.length ? `${reads.length} to read` : ""}
                  {reads.length && changes.length ? ", " : ""}
                  {changes.length ? `${changes.length} to change` : ""}
                </span>
              </summary>
              <div className="grid gap-3 px-3 pb-3 text-sm sm:grid-cols-2">
                <ActionList title="Read" actions={reads} />
                <ActionList title="Change" actions={changes} />
              </div>
            </details>
          </li>
        );
      })}
    </ul>
  );
}

function ActionList({ title, actions }: { title: string; actions: RoleAction[] }) {
  if (!actions.length) return null;
  return (
    <div>
      <p className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{title}</p>
      <ul className="mt-1 space-y-1 text-slate-700 dark:text-slate-300">
        {actions.map((a) => (
          <li key={`${a.method} ${a.path}`} title={`${a.method} ${a.path}`}>
            {a.does}
          </li>
        ))}
      </ul>
    </div>
  );
}
