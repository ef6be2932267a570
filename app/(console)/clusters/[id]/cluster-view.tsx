"use client";

import dynamic from "next/dynamic";
import Link from "next/link";
import { useMemo, useState } from "react";
import {
  useCluster,
  useClusterHeartbeats,
  useFleet,
  useRetireNodePool,
  useRevokeCertificate,
  useSnoozeCluster,
  useUpdateClusterNotes,
  useUpdateLabels,
  type ClusterDetail,
} from "@/lib/client/clusters";
import { gapSummaryText, heartbeatGapBars, notReadyIntervals, summarizeGaps } from "@/lib/domain/heartbeat-gaps";
import { nodeActionsProblem } from "@/lib/domain/node-actions";
import { isHealthStatus } from "@/lib/domain/status";
import { useCancelDrainBatch } from "@/lib/client/cluster-bulk";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { useLiveEvents } from "@/lib/client/live-events";
import type { MintedToken } from "@/lib/client/tokens";
import { CapiOriginCard } from "@/components/cluster-api/capi-origin-card";
import { CertificateCard } from "@/components/clusters/certificate-card";
import { ClusterDetailSkeleton } from "@/components/clusters/cluster-detail-skeleton";
import { ClusterGone } from "@/components/clusters/cluster-gone";
import { ClusterGroupsCard } from "@/components/clusters/cluster-groups-card";
import { ClusterTeamsCard } from "@/components/clusters/cluster-teams-card";
import { ClusterHistory } from "@/components/clusters/cluster-history";
import { ClusterIdentityCard } from "@/components/clusters/cluster-identity-card";
import { ClusterNotesCard } from "@/components/clusters/cluster-notes-card";
import { CopyValue } from "@/components/clusters/copy-value";
import { NotReadyNextSteps } from "@/components/clusters/not-ready-next-steps";
import { KubectlCommandsCard } from "@/components/clusters/kubectl-commands-card";
import { ClusterSnoozeCard } from "@/components/clusters/cluster-snooze-card";
import { LabelChip } from "@/components/ui/label-chips";
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
import { InlineError } from "@/components/ui/inline-error";
import { RelativeTime } from "@/components/ui/relative-time";

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
  const updateNotes = useUpdateClusterNotes(id);
  const snooze = useSnoozeCluster(id);
  const retirePool = useRetireNodePool(id);
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
          <h1 className="mt-1 max-w-full text-xl font-semibold tracking-tight break-all">{c.name}</h1>
          {/* Identity first (on a phone too): which cluster this is, then how it is. */}
          <IdentitySummary cluster={c} requiredLabels={fleet.data?.requiredLabels ?? []} />
          {c.description && <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{c.description}</p>}
          <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1" data-testid="cluster-status-line">
            <StatusBadge status={c.status} />
            <Badge tone="blue">{c.phase}</Badge>
          </div>
          {c.reasons.length > 0 && (
            <div className="mt-2">
              <ClusterReasons reasons={c.reasons} all />
            </div>
          )}
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <LiveIndicator state={live} />
          <LinkOut link={c.link} />
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
          {c.queuedDrain && <QueuedDrainNotice queued={c.queuedDrain} canEdit={canEdit} />}
          {c.status === "NotReady" && <NotReadyNextSteps cluster={c} />}
          <ClusterIdentityCard cluster={c} />
          <HeartbeatTimelineCard id={id} cluster={c} />
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
              <NodePoolsTable
                pools={c.nodePools}
                actions={
                  canEdit && !leaving
                    ? {
                        unavailable: nodeActionsProblem(c.capabilities),
                        workloads: c.workloads,
                        clusterHealth: isHealthStatus(c.status) ? c.status : "NotReady",
                        onRetire: (pool, input) => retirePool.mutateAsync({ pool, ...input }),
                      }
                    : undefined
                }
              />
            </LastKnown>
          </Card>
          <Card title="Status history">
            <ClusterHistory events={c.events} />
          </Card>
        </div>
        <div className="min-w-0 space-y-6">
          <ClusterStatusCard cluster={c} />
          <CapiOriginCard clusterId={id} />
          <ClusterNotesCard cluster={c} canEdit={canEdit} onSave={(patch) => updateNotes.mutateAsync(patch)} />
          <ClusterSnoozeCard
            cluster={c}
            canEdit={canEdit}
            pending={snooze.isPending}
            error={snooze.error}
            onSnooze={(input) => snooze.mutateAsync(input)}
          />
          <ClusterRuntimeCard cluster={c} />
          <KubectlCommandsCard cluster={c} />
          <CertificateCard certificate={c.certificate} canRevoke={canEdit} onRevoke={(reason) => revoke.mutateAsync(reason)} />
          <EnrollmentChecklist enrollment={c.enrollment} />
          <ClusterGroupsCard groups={c.groups} />
          <ClusterTeamsCard teams={c.teams} />
        </div>
      </div>
    </div>
  );
}

/** A bulk drain's turn this cluster waits for: when, who confirmed it and why; operators may cancel the batch's waiting drains. */
function QueuedDrainNotice({ queued, canEdit }: { queued: NonNullable<ClusterDetail["queuedDrain"]>; canEdit: boolean }) {
  const cancel = useCancelDrainBatch();
  return (
    <div
      data-testid="queued-drain"
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <p>
        Waiting in the drain queue: a bulk drain by {queued.by} (“{queued.reason}”) starts draining this cluster{" "}
        <RelativeTime iso={queued.startsAt} />.
      </p>
      <InlineError error={cancel.error} />
      {canEdit && (
        <Button variant="secondary" onClick={() => cancel.mutate(queued.batchId)} disabled={cancel.isPending}>
          {cancel.isPending ? "Cancelling…" : "Cancel this bulk drain’s waiting drains"}
        </Button>
      )}
    </div>
  );
}

function HeartbeatTimelineCard({ id, cluster }: { id: string; cluster: ClusterDetail }) {
  const heartbeats = useClusterHeartbeats(id);
  const { events, status, statusChangedAt, registeredAt } = cluster;
  // One computation for the chart, its header and its description, so they cannot disagree.
  const timeline = useMemo(() => {
    if (!heartbeats.data) return null;
    // eslint-disable-next-line react-hooks/purity -- the minute still filling is judged against the time the data arrived
    const now = Date.now();
    const notReady = notReadyIntervals(events, { status, since: statusChangedAt, now });
    const bars = heartbeatGapBars(heartbeats.data.items, heartbeats.data.expectedPerBucket, registeredAt, notReady, now);
    return { bars, summary: summarizeGaps(bars) };
  }, [heartbeats.data, events, status, statusChangedAt, registeredAt]);
  return (
    <Card
      title="Heartbeats per minute"
      action={
        timeline && (
          <span
            data-testid="heartbeat-gap-header"
            className={`text-xs font-medium ${timeline.summary.gaps ? "text-rose-700 dark:text-rose-400" : "text-slate-600 dark:text-slate-400"}`}
          >
            {gapSummaryText(timeline.summary)}
          </span>
        )
      }
    >
      {heartbeats.isPending ? (
        <Skeleton className="h-[204px]" />
      ) : heartbeats.isError ? (
        <ErrorState
          title="Could not load the heartbeat timeline"
          message={heartbeats.error.message}
          onRetry={() => void heartbeats.refetch()}
        />
      ) : (
        timeline && (
          <HeartbeatTimelineChart
            bars={timeline.bars}
            summary={timeline.summary}
            expectedPerBucket={heartbeats.data.expectedPerBucket}
          />
        )
      )}
    </Card>
  );
}

/** Under the name: the id to copy, the environment and region (the fleet's required labels), the owner. */
function IdentitySummary({ cluster, requiredLabels }: { cluster: ClusterDetail; requiredLabels: readonly string[] }) {
  const keys = requiredLabels.filter((k) => Object.hasOwn(cluster.labels, k));
  return (
    <div
      data-testid="cluster-identity-summary"
      className="mt-1 flex flex-wrap items-center gap-x-4 gap-y-1.5 text-sm text-slate-600 dark:text-slate-400"
    >
      <span className="flex items-center gap-1.5">
        <span className="text-xs">ID</span>
        <CopyValue value={cluster.id} what="the cluster ID" />
      </span>
      {keys.length > 0 && (
        <ul className="flex flex-wrap gap-1" aria-label="Environment and region">
          {keys.map((k) => (
            <li key={k}>
              <LabelChip k={k} v={cluster.labels[k]!} />
            </li>
          ))}
        </ul>
      )}
      <span data-testid="identity-owner">
        Owner:{" "}
        {cluster.owner ? (
          <span className="font-medium text-slate-800 dark:text-slate-200">{cluster.owner}</span>
        ) : (
          <span>not set</span>
        )}
      </span>
    </div>
  );
}

/** The admin's link out (Settings), filled in for this cluster; opens in a new tab. */
function LinkOut({ link }: { link: ClusterDetail["link"] }) {
  if (!link) return null;
  if (link.url === null) {
    return (
      <span className="text-xs text-slate-500 dark:text-slate-400">
        No link out: the cluster has no {link.missingLabels.join(", ")} label
      </span>
    );
  }
  return (
    <a
      href={link.url}
      target="_blank"
      rel="noopener noreferrer"
      className="inline-flex h-9 items-center rounded-md border border-slate-300 px-3.5 text-sm font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-100 dark:hover:bg-slate-800"
    >
      Open in {link.host}
      <span aria-hidden className="ml-1">
        ↗
      </span>
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}
