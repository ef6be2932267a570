"use client";

import { useState } from "react";
import type { DrainOptions, NodePool } from "@/lib/client/clusters";
import type { RetireNodePoolInput } from "@/lib/contracts/clusters";
import { retirePoolRefusal } from "@/lib/domain/node-actions";
import type { HealthStatus } from "@/lib/domain/status";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { ReasonForm } from "@/components/ui/reason-dialog";
import { DrainOptionsFields, NO_DRAIN_OPTIONS } from "./drain-options";

export type PoolWorkloads = { pods: number; userPods?: number | null } | null;

/**
 * Retiring a node pool drains its nodes: the pool's name typed and a reason, like removing a
 * cluster. Refused (here and by the server, with the same rule) on a cluster that is not Ready
 * and on its last active pool; the dialog then says why instead of asking.
 */
export function RetirePoolDialog({
  pool,
  pools,
  clusterHealth,
  workloads,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  pool: NodePool;
  pools: readonly NodePool[];
  clusterHealth: HealthStatus;
  workloads: PoolWorkloads;
  pending: boolean;
  error: unknown;
  onConfirm: (input: RetireNodePoolInput) => void;
  onClose: () => void;
}) {
  const refusal = retirePoolRefusal({ health: clusterHealth }, pools, pool.name);
  const [drain, setDrain] = useState<DrainOptions>(NO_DRAIN_OPTIONS);
  return (
    <Dialog
      title={`Retire node pool ${pool.name}?`}
      description={<RetireSummary pool={pool} workloads={workloads} />}
      onClose={onClose}
    >
      {refusal ? (
        <div className="space-y-4">
          <p
            role="alert"
            data-testid="retire-refused"
            className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
          >
            {refusal.message}
          </p>
          <div className="flex justify-end">
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
          </div>
        </div>
      ) : (
        <div className="space-y-4">
          {/* How the agent drains the pool, above the confirmation. */}
          <DrainOptionsFields value={drain} disabled={pending} onChange={setDrain} />
          <ReasonForm
            reasonRequired
            reasonHint="Kept in the audit log."
            confirmText={pool.name}
            confirmNoun="pool name"
            confirmLabel="Retire pool"
            pendingLabel="Retiring…"
            dismissLabel="Cancel"
            variant="danger"
            pending={pending}
            error={error}
            onConfirm={(reason) =>
              onConfirm({
                reason: reason ?? "",
                ...(drain.force ? { force: true } : {}),
                ...(drain.deleteEmptyDirData ? { deleteEmptyDirData: true } : {}),
              })
            }
            onClose={onClose}
          />
        </div>
      )}
    </Dialog>
  );
}

function RetireSummary({ pool, workloads }: { pool: NodePool; workloads: PoolWorkloads }) {
  const pods = workloads
    ? `${workloads.pods} pod${workloads.pods === 1 ? "" : "s"}${workloads.userPods != null ? ` (${workloads.userPods} of them user pods)` : ""}`
    : null;
  return (
    <span data-testid="retire-summary">
      The agent cordons and drains the pool&apos;s{" "}
      <strong>
        {pool.nodeCount} node{pool.nodeCount === 1 ? "" : "s"}
      </strong>{" "}
      ({pool.readyNodes} ready); the pods on them are evicted and rescheduled elsewhere.{" "}
      {pods
        ? `The cluster runs ${pods} in all; the agent does not count them per pool.`
        : "The agent has not reported the cluster's pods."}
    </span>
  );
}
