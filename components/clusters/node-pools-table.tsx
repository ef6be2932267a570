import type { NodePool } from "@/lib/client/clusters";
import { Badge } from "@/components/ui/badge";
import { formatMemory } from "@/components/ui/format";

const th = "px-4 py-2.5 font-medium";
const td = "px-4 py-2.5";

/** Node pools as the agent last reported them. */
export function NodePoolsTable({ pools }: { pools: readonly NodePool[] }) {
  if (pools.length === 0) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">The agent has not reported any node pools yet.</p>;
  }
  const nodes = pools.reduce((n, p) => n + p.nodeCount, 0);
  const ready = pools.reduce((n, p) => n + p.readyNodes, 0);
  return (
    <div className="-m-5 overflow-x-auto" role="region" aria-label="Node pools" tabIndex={0}>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">
          Node pools: {ready} of {nodes} nodes ready
        </caption>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-800/50 dark:text-slate-400">
          <tr>
            <th scope="col" className={th}>
              Pool
            </th>
            <th scope="col" className={th}>
              Nodes ready
            </th>
            <th scope="col" className={th}>
              Kubelet
            </th>
            <th scope="col" className={th}>
              Instance type
            </th>
            <th scope="col" className={`${th} text-right`}>
              CPU
            </th>
            <th scope="col" className={`${th} text-right`}>
              Memory
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {pools.map((p) => (
            <tr key={p.name}>
              <th scope="row" className={`${td} font-medium`}>
                <span className="flex items-center gap-2">
                  {p.name}
                  {p.state !== "Active" && <Badge tone="amber">{p.state}</Badge>}
                </span>
              </th>
              <td className={td}>
                <NodesReady ready={p.readyNodes} total={p.nodeCount} />
              </td>
              <td className={`${td} font-mono text-xs`}>{p.kubeletVersion ?? "—"}</td>
              <td className={`${td} font-mono text-xs`}>{p.instanceType ?? "—"}</td>
              <td className={`${td} text-right tabular-nums`}>{p.cpuCores === null ? "—" : `${p.cpuCores} cores`}</td>
              <td className={`${td} text-right tabular-nums`}>{formatMemory(p.memoryGiB)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NodesReady({ ready, total }: { ready: number; total: number }) {
  const short = ready < total;
  return (
    <span className="flex items-center gap-2">
      <span className={`w-14 tabular-nums ${short ? "font-medium text-rose-700 dark:text-rose-400" : ""}`}>
        {ready}/{total}
      </span>
      <span aria-hidden className="h-1.5 w-16 overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800">
        <span
          className={`block h-full rounded-full ${short ? "bg-rose-500" : "bg-emerald-500"}`}
          style={{ width: `${total ? (ready / total) * 100 : 0}%` }}
        />
      </span>
    </span>
  );
}
