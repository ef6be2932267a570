"use client";

import { useState } from "react";
import type { NodePool } from "@/lib/client/clusters";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { formatMemory } from "@/components/ui/format";
import type { RetireNodePoolInput } from "@/lib/contracts/clusters";
import type { HealthStatus } from "@/lib/domain/status";
import { RetirePoolDialog, type PoolWorkloads } from "./retire-pool-dialog";

const th = "px-4 py-2.5 font-medium";
const td = "px-4 py-2.5";

export type PoolActions = {
  /** why Retire is unavailable (the agent does not advertise node actions); null when it is */
  unavailable: string | null;
  /** the cluster's pods as last reported (the agent does not count them per pool) */
  workloads: PoolWorkloads;
  /** retiring is refused unless the cluster is Ready */
  clusterHealth: HealthStatus;
  onRetire: (pool: string, input: RetireNodePoolInput) => Promise<unknown>;
};

/** Node pools as the agent last reported them; with `actions` (operators), a Retire per pool. */
export function NodePoolsTable({ pools, actions }: { pools: readonly NodePool[]; actions?: PoolActions }) {
  const [retiring, setRetiring] = useState<NodePool | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (pools.length === 0) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">Node pools: not yet read by the agent.</p>;
  }
  const nodes = pools.reduce((n, p) => n + p.nodeCount, 0);
  const ready = pools.reduce((n, p) => n + p.readyNodes, 0);
  return (
    <>
      {actions?.unavailable && (
        <p id="node-actions-unavailable" className="mb-4 text-sm text-slate-600 dark:text-slate-400">
          Retire is off: {actions.unavailable}
        </p>
      )}
      <div
        className={`${actions?.unavailable ? "-mx-5 -mb-5" : "-m-5"} overflow-x-auto`}
        tabIndex={0}
        role="region"
        aria-label="Node pools table"
      >
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
              {actions && (
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              )}
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
                {actions && (
                  <td className={`${td} text-right`}>
                    {p.state === "Active" && (
                      <Button
                        variant="secondary"
                        className="disabled:opacity-50"
                        disabled={actions.unavailable !== null}
                        aria-describedby={actions.unavailable ? "node-actions-unavailable" : undefined}
                        onClick={() => {
                          setError(null);
                          setRetiring(p);
                        }}
                      >
                        <span>
                          Retire<span className="sr-only"> {p.name}</span>…
                        </span>
                      </Button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {actions && retiring && (
        <RetirePoolDialog
          pool={retiring}
          pools={pools}
          clusterHealth={actions.clusterHealth}
          workloads={actions.workloads}
          pending={pending}
          error={error}
          onClose={() => setRetiring(null)}
          onConfirm={(input) => {
            setPending(true);
            actions
              .onRetire(retiring.name, input)
              .then(() => setRetiring(null))
              .catch(setError)
              .finally(() => setPending(false));
          }}
        />
      )}
    </>
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
