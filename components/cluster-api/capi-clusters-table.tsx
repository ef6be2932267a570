"use client";

import Link from "next/link";
import { useState } from "react";
import { useClearCapiMark, useRetryCapiCluster, type CapiClusterView } from "@/lib/client/cluster-api";
import { DO_NOT_IMPORT_ANNOTATION } from "@/lib/domain/cluster-api";
import { formatDuration } from "@/lib/domain/time-format";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { RelativeTime, useNow } from "@/components/ui/relative-time";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { TableHead } from "@/components/ui/table-head";
import { CapiConditions, CapiStepBadge, CapiStepError } from "./capi-step";

const muted = "text-slate-600 dark:text-slate-400";
const qualified = (c: CapiClusterView) => `${c.namespace}/${c.name}`;

/** What a person may do to a row: retry a failed step (operator), let an excluded one back in (admin). */
export type CapiClusterActions = { canRetry: boolean; canClearMark: boolean; onDone: (message: string) => void };

type Confirming = { kind: "retry" | "clear"; cluster: CapiClusterView } | null;

function Age({ iso }: { iso: string | null }) {
  const now = useNow();
  if (!iso) return <span className={muted}>—</span>;
  return (
    <time dateTime={iso} className="tabular-nums" title={`created ${iso}`}>
      {formatDuration(now - Date.parse(iso))}
    </time>
  );
}

function Row({
  c,
  actions,
  onConfirm,
}: {
  c: CapiClusterView;
  actions: CapiClusterActions;
  onConfirm: (confirming: NonNullable<Confirming>) => void;
}) {
  const canRetry = actions.canRetry && !!c.error;
  const canClear = actions.canClearMark && !!c.excluded;
  return (
    <tr data-capi-cluster={qualified(c)} data-step={c.step} className="align-top">
      <td className="min-w-44 px-4 py-2.5">
        <div className="font-mono text-xs font-medium break-words">{qualified(c)}</div>
        <div className={`mt-0.5 text-xs ${muted}`}>on {c.source.name}</div>
      </td>
      <td className="min-w-44 px-4 py-2.5 text-xs">
        {c.clusterId ? (
          <Link
            href={`/clusters/${c.clusterId}`}
            className="font-mono break-words text-sky-700 hover:underline dark:text-sky-400"
          >
            {c.fleetName}
          </Link>
        ) : (
          <>
            <span className="font-mono break-words text-slate-500 dark:text-slate-400">{c.fleetName}</span>
            <div className={`mt-0.5 ${muted}`}>not in the fleet</div>
          </>
        )}
      </td>
      <td className="max-w-80 min-w-56 px-4 py-2.5">
        <CapiStepBadge step={c.step} />
        <p className={`mt-1 text-xs ${muted}`}>{c.waitingFor}</p>
        {c.excluded && (
          <p className={`mt-0.5 text-xs ${muted}`}>
            Removed by {c.excluded.by} <RelativeTime iso={c.excluded.at} />
          </p>
        )}
        <CapiStepError cluster={c} />
      </td>
      <td className="min-w-52 px-4 py-2.5">
        <div className="text-xs font-medium">{c.capiPhase ?? <span className={muted}>no phase yet</span>}</div>
        <div className="mt-1">
          <CapiConditions conditions={c.conditions} />
        </div>
      </td>
      <td className="px-4 py-2.5 text-xs">
        <div>{c.infrastructureProvider ?? <span className={muted}>—</span>}</div>
        {c.kubernetesVersion && <div className="mt-0.5 font-mono">{c.kubernetesVersion}</div>}
        {c.topologyClass && <div className={`mt-0.5 ${muted}`}>class {c.topologyClass}</div>}
      </td>
      <td className="px-4 py-2.5 text-xs whitespace-nowrap">
        <Age iso={c.capiCreatedAt} />
      </td>
      {(actions.canRetry || actions.canClearMark) && (
        <td className="px-4 py-2 text-right">
          <div className="flex flex-col items-end gap-1 whitespace-nowrap">
            {canRetry && (
              <Button variant="secondary" className="h-8" onClick={() => onConfirm({ kind: "retry", cluster: c })}>
                Retry now<span className="sr-only"> {qualified(c)}</span>
              </Button>
            )}
            {canClear && (
              <Button variant="secondary" className="h-8" onClick={() => onConfirm({ kind: "clear", cluster: c })}>
                Allow re-import<span className="sr-only"> of {qualified(c)}</span>
              </Button>
            )}
          </div>
        </td>
      )}
    </tr>
  );
}

function RetryDialog({
  cluster,
  onClose,
  onDone,
}: {
  cluster: CapiClusterView;
  onClose: () => void;
  onDone: (m: string) => void;
}) {
  const retry = useRetryCapiCluster();
  return (
    <ConfirmDialog
      title={`Retry ${qualified(cluster)} now?`}
      description={
        <>
          Its step ({cluster.step}) is tried again within seconds instead of after its back-off, which starts over. The last
          failure was: <span className="break-words">{cluster.error?.message}</span>. The retry is recorded in the audit log.
        </>
      }
      variant="primary"
      confirmLabel="Retry now"
      pendingLabel="Retrying…"
      pending={retry.isPending}
      error={retry.error}
      onConfirm={() =>
        retry.mutate(cluster.id, {
          onSuccess: () => {
            onDone(`Retrying ${qualified(cluster)} now.`);
            onClose();
          },
        })
      }
      onClose={onClose}
    />
  );
}

function ClearMarkDialog({
  cluster,
  onClose,
  onDone,
}: {
  cluster: CapiClusterView;
  onClose: () => void;
  onDone: (m: string) => void;
}) {
  const clear = useClearCapiMark();
  return (
    <ConfirmDialog
      title={`Allow ${qualified(cluster)} to be imported again?`}
      description={
        <>
          {cluster.excluded ? `${cluster.excluded.by} removed it from the registry` : "It was removed from the registry"}, so it
          was marked not to be imported again. Clearing the mark imports it on the next pass while it is still opted in, and
          removes the fleet&apos;s <span className="font-mono text-xs">{DO_NOT_IMPORT_ANNOTATION}</span> annotation from the CAPI
          Cluster. Recorded in the audit log.
        </>
      }
      variant="primary"
      confirmLabel="Allow re-import"
      pendingLabel="Clearing…"
      pending={clear.isPending}
      error={clear.error}
      onConfirm={() =>
        clear.mutate(cluster.id, {
          onSuccess: () => {
            onDone(`${qualified(cluster)} may be imported again.`);
            onClose();
          },
        })
      }
      onClose={onClose}
    />
  );
}

/** The CAPI Clusters seen: where each is, its step and what it waits for, its CAPI state, and what a person may do. */
export function CapiClustersTable({ clusters, actions }: { clusters: CapiClusterView[]; actions: CapiClusterActions }) {
  const [confirming, setConfirming] = useState<Confirming>(null);
  const close = () => setConfirming(null);
  return (
    <>
      <ScrollRegion label="CAPI Clusters table" className="rounded-md border border-slate-200 dark:border-slate-800">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">CAPI Clusters seen on the sources</caption>
          <TableHead
            columns={["CAPI Cluster", "Fleet cluster", "Step", "Phase and conditions", "Infrastructure", "Age"]}
            actions={actions.canRetry || actions.canClearMark}
          />
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {clusters.map((c) => (
              <Row key={c.id} c={c} actions={actions} onConfirm={setConfirming} />
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      {confirming?.kind === "retry" && <RetryDialog cluster={confirming.cluster} onClose={close} onDone={actions.onDone} />}
      {confirming?.kind === "clear" && <ClearMarkDialog cluster={confirming.cluster} onClose={close} onDone={actions.onDone} />}
    </>
  );
}
