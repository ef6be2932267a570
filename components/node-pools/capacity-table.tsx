import type { Capacity } from "@/lib/client/node-pools";
import Link from "next/link";
import { formatMemory } from "@/components/ui/format";
import { clustersWithLabel } from "./cluster-links";
import { ScrollRegion } from "@/components/ui/scroll-region";

const TH = "px-4 py-2.5 font-medium";

/** Capacity per value of any label as a table, with a bar of each row's share of all nodes. */
export function CapacityTable({ capacity }: { capacity: Capacity }) {
  const totalNodes = capacity.rows.reduce((s, r) => s + r.nodes, 0) || 1;
  return (
    <ScrollRegion label={`Capacity by ${capacity.by}`} className="rounded-md border border-slate-200 dark:border-slate-800">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Node pool capacity by the label {capacity.by}</caption>
        <thead className="bg-slate-50 text-xs tracking-wide text-slate-500 uppercase dark:bg-slate-800/50 dark:text-slate-400">
          <tr>
            <th scope="col" className={TH}>
              {capacity.by}
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Clusters
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Pools
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Nodes ready / total
            </th>
            <th scope="col" className={`${TH} w-56`}>
              Share of nodes
            </th>
            <th scope="col" className={`${TH} text-right`}>
              CPU cores
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Memory
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Pools on NotReady clusters
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 tabular-nums dark:divide-slate-800">
          {capacity.rows.map((r) => {
            const share = r.nodes / totalNodes;
            return (
              <tr key={r.key} data-key={r.key}>
                <th scope="row" className="px-4 py-2.5 text-left font-medium">
                  {r.key === "(none)" ? (
                    <span className="text-slate-500 italic dark:text-slate-400">no {capacity.by} label</span>
                  ) : (
                    <Link href={clustersWithLabel(capacity.by, r.key)} prefetch={false} className="hover:underline">
                      {r.key}
                    </Link>
                  )}
                </th>
                <td className="px-4 py-2.5 text-right">{r.clusters.toLocaleString("en-US")}</td>
                <td className="px-4 py-2.5 text-right">{r.pools.toLocaleString("en-US")}</td>
                <td className="px-4 py-2.5 text-right">
                  <span className={r.readyNodes < r.nodes ? "text-rose-700 dark:text-rose-400" : ""}>
                    {r.readyNodes.toLocaleString("en-US")}
                  </span>
                  <span className="text-slate-500 dark:text-slate-400"> / {r.nodes.toLocaleString("en-US")}</span>
                </td>
                <td className="px-4 py-2.5">
                  <div className="flex items-center gap-2">
                    <div aria-hidden className="h-1.5 flex-1 overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800">
                      <div className="h-full rounded-full bg-sky-500" style={{ width: `${share * 100}%` }} />
                    </div>
                    <span className="w-10 text-right text-xs text-slate-600 dark:text-slate-400">
                      {Math.round(share * 100)} %
                    </span>
                  </div>
                </td>
                <td className="px-4 py-2.5 text-right">{r.cpuCores.toLocaleString("en-US")}</td>
                <td className="px-4 py-2.5 text-right">{formatMemory(r.memoryGiB)}</td>
                <td className="px-4 py-2.5 text-right">
                  {r.notReady.pools ? (
                    <Link
                      href={clustersWithLabel(capacity.by, r.key, "NotReady")}
                      prefetch={false}
                      className="text-amber-800 underline dark:text-amber-300"
                    >
                      {r.notReady.pools.toLocaleString("en-US")}
                    </Link>
                  ) : (
                    <span className="text-slate-500 dark:text-slate-400">0</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
