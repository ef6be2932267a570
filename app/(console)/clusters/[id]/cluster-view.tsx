"use client";

import dynamic from "next/dynamic";
import Link from "next/link";
import { useState } from "react";
import { useCluster, useClusterHeartbeats, useFleet, useRevokeCertificate, useUpdateLabels } from "@/lib/client/clusters";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { useLiveEvents } from "@/lib/client/live-events";
import type { MintedToken } from "@/lib/client/tokens";
import { CertificateCard } from "@/components/clusters/certificate-card";
import { ClusterDetailSkeleton } from "@/components/clusters/cluster-detail-skeleton";
import { ClusterGone } from "@/components/clusters/cluster-gone";
import { ClusterGroupsCard } from "@/components/clusters/cluster-groups-card";
import { ClusterHistory } from "@/components/clusters/cluster-history";
import { ClusterIdentityCard } from "@/components/clusters/cluster-identity-card";
import { ClusterReasons } from "@/components/clusters/cluster-reasons";
import { AsOfNote, LastKnown } from "@/components/clusters/last-known";
import { ClusterRuntimeCard } from "@/components/clusters/cluster-runtime-card";
import { ClusterStatusCard } from "@/components/clusters/cluster-status-card";
import { EnrollmentChecklist } from "@/components/clusters/enrollment-checklist";
import { LabelsEditor } from "@/components/clusters/labels-editor";
import { LiveIndicator } from "@/components/ui/live-indicator";
import { NodePoolsTable } from "@/components/clusters/node-pools-table";
import { ReEnrolDialog } from "@/components/clusters/re-enrol-dialog";
import { MintedTokenPanel } from "@/components/tokens/minted-token-panel";
import { StatusBadge } from "@/components/ui/status-badge";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";

// The charting library loads after the rest of the page (it is most of the JavaScript).
const HeartbeatTimelineChart = dynamic(
  () => import("@/components/clusters/heartbeat-timeline-chart").then((m) => m.HeartbeatTimelineChart),
  { ssr: false, loading: () => <Skeleton className="h-[204px]" /> },
);

export function ClusterView({ id, canEdit }: { id: string; canEdit: boolean }) {
  const live = useLiveEvents();
  const cluster = useCluster(id);
  const fleet = useFleet();
  const updateLabels = useUpdateLabels(id);
  const revoke = useRevokeCertificate(id);
  // The re-enrolment token lives here, in component state, only until its panel is closed.
  const [reEnrol, setReEnrol] = useState<{ kind: "closed" } | { kind: "dialog" } | { kind: "minted"; token: MintedToken }>({
    kind: "closed",
  });

  if (cluster.isPending) return <ClusterDetailSkeleton />;
  if (cluster.isError) {
    // Removed while open (a live event refetched it) or never existed.
    if (cluster.error instanceof ApiRequestError && cluster.error.status === 404) return <ClusterGone id={id} />;
    return (
      <ErrorState title="Could not load this cluster" message={cluster.error.message} onRetry={() => void cluster.refetch()} />
    );
  }
  const c = cluster.data;
  const leaving = c.phase === "Draining" || c.phase === "Deregistration";
  return (
    <div className="space-y-6">
      <header className="flex flex-wrap items-end justify-between gap-4">
        <div className="max-w-full min-w-0">
          <Link
            href="/clusters"
            className="text-sm text-slate-500 hover:text-slate-800 hover:underline dark:text-slate-400 dark:hover:text-slate-200"
          >
            ← Clusters
          </Link>
          <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1">
            <h1 className="max-w-full truncate text-xl font-semibold tracking-tight">{c.name}</h1>
            <StatusBadge status={c.status} />
            <Badge tone="blue">{c.phase}</Badge>
          </div>
          {c.reasons.length > 0 && (
            <div className="mt-2">
              <ClusterReasons reasons={c.reasons} all />
            </div>
          )}
          {c.description && <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{c.description}</p>}
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <LiveIndicator state={live} />
          {/* Hidden from viewers as a courtesy; the API refuses their mints regardless. */}
          {canEdit && !leaving && (
            <Button id="re-enrol-button" variant="secondary" onClick={() => setReEnrol({ kind: "dialog" })}>
              Re-enrol…
            </Button>
          )}
          {/* Viewers may follow a deregistration too; only operators can act in it. */}
          <Link
            href={`/clusters/${id}/deregister`}
            className="inline-flex h-9 items-center rounded-md border border-slate-300 px-3.5 text-sm font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-100 dark:hover:bg-slate-800"
          >
            {leaving ? "Deregistration in progress" : canEdit ? "Drain and deregister…" : "Deregistration"}
          </Link>
        </div>
      </header>

      {reEnrol.kind === "dialog" && (
        <ReEnrolDialog
          cluster={c}
          onClose={() => setReEnrol({ kind: "closed" })}
          onMinted={(token) => setReEnrol({ kind: "minted", token })}
        />
      )}
      {reEnrol.kind === "minted" && (
        <MintedTokenPanel
          minted={reEnrol.token}
          boundCluster={c.name}
          onClose={() => {
            setReEnrol({ kind: "closed" });
            requestAnimationFrame(() => document.getElementById("re-enrol-button")?.focus());
          }}
        />
      )}

      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <ClusterIdentityCard cluster={c} />
          <HeartbeatTimelineCard id={id} registeredAt={c.registeredAt} />
          <Card title="Labels">
            <LabelsEditor
              labels={c.labels}
              requiredLabels={fleet.data?.requiredLabels ?? []}
              canEdit={canEdit}
              onSave={(labels) => updateLabels.mutateAsync(labels)}
            />
          </Card>
          <Card title="Node pools" action={<AsOfNote asOf={c.factsAsOf} />}>
            <LastKnown asOf={c.factsAsOf}>
              <NodePoolsTable pools={c.nodePools} />
            </LastKnown>
          </Card>
          <Card title="Status history">
            <ClusterHistory events={c.events} />
          </Card>
        </div>
        <div className="min-w-0 space-y-6">
          <ClusterStatusCard cluster={c} />
          <ClusterRuntimeCard cluster={c} />
          <CertificateCard certificate={c.certificate} canRevoke={canEdit} onRevoke={(reason) => revoke.mutateAsync(reason)} />
          <EnrollmentChecklist enrollment={c.enrollment} />
          <ClusterGroupsCard groups={c.groups} />
        </div>
      </div>
    </div>
  );
}

function HeartbeatTimelineCard({ id, registeredAt }: { id: string; registeredAt: string | null }) {
  const heartbeats = useClusterHeartbeats(id);
  return (
    <Card title="Heartbeats per minute">
      {heartbeats.isPending ? (
        <Skeleton className="h-[204px]" />
      ) : heartbeats.isError ? (
        <ErrorState
          title="Could not load the heartbeat timeline"
          message={heartbeats.error.message}
          onRetry={() => void heartbeats.refetch()}
        />
      ) : (
        <HeartbeatTimelineChart
          items={heartbeats.data.items}
          expectedPerBucket={heartbeats.data.expectedPerBucket}
          registeredAt={registeredAt}
        />
      )}
    </Card>
  );
}
