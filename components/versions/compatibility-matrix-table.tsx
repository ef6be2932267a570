import type { CompatibilityMatrix } from "@/lib/domain/compatibility";
import { satisfies } from "@/lib/domain/semver";
import { Badge } from "@/components/ui/badge";
import { clustersInRange, kubernetesColumns, kubernetesSupport, minorOf, rangeAccepted, type Support } from "./version-math";
import { ScrollRegion } from "@/components/ui/scroll-region";

const CELL: Record<Support, { mark: string; word: string; className: string }> = {
  full: {
    mark: "✓",
    word: "supported",
    className: "bg-emerald-100 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300",
  },
  partial: {
    mark: "◐",
    word: "some patch versions supported",
    className: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
  },
  none: { mark: "–", word: "not supported", className: "text-slate-500 dark:text-slate-400" },
};

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 text-sm font-medium">{children}</dd>
    </div>
  );
}

/**
 * The compatibility matrix: the agent versions this control plane accepts and, per agent version
 * range, which Kubernetes minors it supports, with how many clusters run each.
 */
export function CompatibilityMatrixTable({
  matrix,
  agentVersions,
  kubernetesVersions,
}: {
  matrix: CompatibilityMatrix;
  agentVersions: { version: string; count: number }[];
  kubernetesVersions: { version: string; count: number }[];
}) {
  const columns = kubernetesColumns(
    matrix,
    kubernetesVersions.map((k) => k.version),
  );
  const perMinor = (label: string) =>
    kubernetesVersions.filter((k) => minorOf(k.version) === label).reduce((s, k) => s + k.count, 0);
  return (
    <div className="space-y-5">
      <dl className="grid grid-cols-3 gap-4 rounded-md bg-slate-50 px-4 py-3 dark:bg-slate-800/40">
        <Fact label="Control plane">
          <code className="font-mono">{matrix.controlPlaneVersion}</code>
        </Fact>
        <Fact label="Accepted agent versions">
          <code data-testid="accepted-range" className="font-mono">
            {matrix.acceptedAgentVersions}
          </code>
        </Fact>
        <Fact label="Recommended agent version">
          <code data-testid="recommended-version" className="font-mono">
            {matrix.recommendedAgentVersion}
          </code>
        </Fact>
      </dl>
      <ScrollRegion label="Compatibility matrix">
        <table className="w-full table-fixed text-sm">
          <caption className="sr-only">
            Kubernetes versions supported by each agent version range; columns are Kubernetes minor versions
          </caption>
          <thead className="text-xs text-slate-500 dark:text-slate-400">
            <tr className="border-b border-slate-200 dark:border-slate-800">
              <th scope="col" className="w-52 py-2 pr-4 text-left font-medium tracking-wide uppercase">
                Agent versions
              </th>
              <th scope="col" className="w-48 py-2 pr-4 text-left font-medium tracking-wide uppercase">
                Kubernetes range
              </th>
              {columns.map((c) => (
                <th
                  key={c.label}
                  scope="col"
                  className="w-16 px-1 py-2 text-center font-mono font-medium text-slate-700 dark:text-slate-300"
                >
                  {c.label}
                </th>
              ))}
              <th scope="col" className="py-2 pl-4 text-right font-medium tracking-wide uppercase">
                Clusters
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {matrix.agents.map((row) => {
              const recommended = satisfies(matrix.recommendedAgentVersion, row.agentVersions);
              const accepted = rangeAccepted(row.agentVersions, matrix.acceptedAgentVersions);
              return (
                <tr key={row.agentVersions} data-agent-range={row.agentVersions}>
                  <th scope="row" className="py-2.5 pr-4 text-left font-normal whitespace-nowrap">
                    <code className="font-mono font-medium">{row.agentVersions}</code>
                    {recommended && (
                      <span className="ml-2">
                        <Badge tone="green">recommended</Badge>
                      </span>
                    )}
                    {!accepted && (
                      <span className="ml-2">
                        <Badge tone="red">not accepted</Badge>
                      </span>
                    )}
                  </th>
                  <td className="py-2.5 pr-4 whitespace-nowrap">
                    <code className="font-mono text-xs text-slate-600 dark:text-slate-400">{row.kubernetes}</code>
                  </td>
                  {columns.map((c) => {
                    const cell = CELL[kubernetesSupport(row.kubernetes, c)];
                    return (
                      <td key={c.label} className="px-1 py-2.5 text-center">
                        <span
                          title={`Agent ${row.agentVersions} on Kubernetes ${c.label}: ${cell.word}`}
                          className={`inline-flex h-6 w-6 items-center justify-center rounded text-xs font-bold ${cell.className}`}
                        >
                          <span aria-hidden>{cell.mark}</span>
                          <span className="sr-only">{cell.word}</span>
                        </span>
                      </td>
                    );
                  })}
                  <td className="py-2.5 pl-4 text-right tabular-nums">
                    {clustersInRange(row.agentVersions, agentVersions).toLocaleString("en-US")}
                  </td>
                </tr>
              );
            })}
          </tbody>
          <tfoot className="border-t border-slate-200 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
            <tr>
              <th scope="row" colSpan={2} className="py-2 pr-4 text-left font-medium">
                Clusters on this Kubernetes minor
              </th>
              {columns.map((c) => (
                <td key={c.label} className="px-1 py-2 text-center tabular-nums">
                  {perMinor(c.label) || <span className="text-slate-500 dark:text-slate-400">0</span>}
                </td>
              ))}
              <td className="py-2 pl-4 text-right tabular-nums">
                {kubernetesVersions.reduce((s, k) => s + k.count, 0).toLocaleString("en-US")}
              </td>
            </tr>
          </tfoot>
        </table>
      </ScrollRegion>
      <ul aria-hidden className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-slate-500 dark:text-slate-400">
        {(["full", "partial", "none"] as const).map((s) => (
          <li key={s} className="flex items-center gap-1.5">
            <span
              className={`inline-flex h-4 w-4 items-center justify-center rounded text-[10px] font-bold ${CELL[s].className}`}
            >
              {CELL[s].mark}
            </span>
            {CELL[s].word}
          </li>
        ))}
      </ul>
    </div>
  );
}
