import type { ClusterDetail } from "@/lib/client/clusters";
import { Card } from "@/components/ui/card";

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** Who besides fleet roles sees and acts on this cluster: the teams whose scope takes it in, and why. */
export function ClusterTeamsCard({ teams }: { teams: ClusterDetail["teams"] }) {
  return (
    <Card title="Teams">
      {teams.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No team&apos;s scope takes this cluster in: only fleet roles see it.
        </p>
      ) : (
        <ul className="space-y-3" aria-label="Teams that can see this cluster">
          {teams.map((t) => (
            <li key={t.id} data-team={t.name} className="text-sm">
              <p className="font-medium">{t.name}</p>
              <p className="text-slate-600 dark:text-slate-400">
                because{" "}
                {t.matched.map((term, i) => (
                  <span key={term}>
                    {i > 0 && ", "}
                    <code className="rounded bg-slate-100 px-1 font-mono text-xs dark:bg-slate-800">{term}</code>
                  </span>
                ))}
              </p>
              <p className="text-xs text-slate-500 dark:text-slate-400">
                {[
                  count(t.members.admin, "team admin"),
                  count(t.members.operator, "operator"),
                  count(t.members.viewer, "viewer"),
                ].join(" · ")}
              </p>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
