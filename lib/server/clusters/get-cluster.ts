import "server-only";
import { teamsSeeing } from "@/lib/server/teams/teams-seeing";
import { totalNodes } from "./list-clusters";
import { enrollmentChecklist } from "@/lib/domain/enrollment";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { clusterReasons, factsAsOf } from "@/lib/domain/cluster-reason";
import { clusterStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { parseStored } from "@/lib/server/lifecycle/enrollment";
import { usableGroupSelector } from "@/lib/server/groups/group-selector";
import { parseStoredCapabilities } from "@/lib/server/heartbeats/agent-capabilities";
import { expandClusterLink } from "@/lib/domain/cluster-link";
import { expandKubeContext } from "@/lib/domain/kube-context";
import { snoozeView } from "@/lib/domain/cluster-snooze";
import { sameClusterPeers, statusChangesLastHour } from "./cluster-list-sql";
import { scopeFor } from "@/lib/domain/teams";
import { accessOf, type Principal } from "@/lib/server/auth/principal";

export type LoadedGroup = { id: string; name: string; selector: Selector | null };

/** Every group by name, parsed once; an invalid stored selector is null and matches nothing. */
export async function loadGroups(): Promise<LoadedGroup[]> {
  const groups = await db().clusterGroup.findMany({ select: { id: true, name: true, selector: true }, orderBy: { name: "asc" } });
  return groups.map((g) => ({ id: g.id, name: g.name, selector: usableGroupSelector(g) }));
}

/** The groups whose selector matches these labels (groups are few; selectors are matched in memory). */
export function groupsMatching(labels: Record<string, string>, groups: LoadedGroup[]): LoadedGroup[] {
  return groups.filter((g) => g.selector !== null && matchesSelector(labels, g.selector));
}

/** A cluster's page as this caller may read it: a peer with the same UID outside their teams' scopes is not named. */
export function getClusterFor(principal: Principal, id: string) {
  return getCluster(id, scopeFor(accessOf(principal), "viewer"));
}

/** One cluster's page; `scope`: the caller's teams' selectors (a peer outside them is not named). */
export async function getCluster(id: string, scope: readonly Selector[] | null = null) {
  const now = new Date();
  const settings = await getSettings();
  const c = await db().cluster.findUnique({
    where: { id },
    include: {
      labels: { select: { key: true, value: true } },
      nodePools: { orderBy: { name: "asc" } },
      certificates: { orderBy: { createdAt: "desc" }, take: 5 },
      registrationToken: { select: { id: true, name: true } },
      queuedDrain: true,
      // Directives the agent could not carry out, newest first, with its reason (shown on the cluster page).
      directives: {
        where: { failedReason: { not: null } },
        orderBy: { ackedAt: "desc" },
        take: 5,
        select: { id: true, type: true, failedReason: true, ackedAt: true },
      },
    },
  });
  if (!c) throw new ApiError("not_found", "No cluster with this id (it may have been deregistered).");
  const labels = Object.fromEntries(c.labels.map((l) => [l.key, l.value]));
  const [[groups, fleetGroupCount], events, changes, sameCluster, teams] = await Promise.all([
    loadGroups().then((all) => [groupsMatching(labels, all), all.length] as const),
    db().clusterEvent.findMany({ where: { clusterId: id }, orderBy: { at: "desc" }, take: 50 }),
    statusChangesLastHour([id], now),
    sameClusterPeers([id], scope),
    teamsSeeing(labels),
  ]);
  const cert = c.certificates.find((x) => !x.revokedAt) ?? c.certificates[0] ?? null;
  const checklist = enrollmentChecklist(
    { ...c, labels, groupCount: groups.length, fleetGroupCount },
    settings.requiredLabels,
    now,
    settings.notReadyThresholdSeconds,
  );
  return {
    id: c.id,
    name: c.name,
    status: clusterStatus(c, now, settings.notReadyThresholdSeconds),
    phase: c.phase,
    phaseChangedAt: c.phaseChangedAt.toISOString(),
    statusChangedAt: c.statusChangedAt.toISOString(),
    labels,
    lastHeartbeatAt: c.lastHeartbeatAt?.toISOString() ?? null,
    agentVersion: c.agentVersion,
    kubernetesVersion: c.kubernetesVersion,
    apiServerUrl: c.apiServerUrl,
    caFingerprint: c.caFingerprint,
    clusterUid: c.clusterUid,
    registeredAt: c.registeredAt?.toISOString() ?? null,
    registrationToken: c.registrationToken,
    description: c.description,
    owner: c.owner,
    notes: c.notes,
    snooze: snoozeView(c, now),
    capabilities: parseStoredCapabilities(c.capabilities),
    link: expandClusterLink(settings.clusterLinkTemplate, { id: c.id, name: c.name, labels }),
    kubeContext: expandKubeContext(settings.kubeContextTemplate, { id: c.id, name: c.name, labels }),
    teams,
    queuedDrain: c.queuedDrain && {
      batchId: c.queuedDrain.batchId,
      startsAt: c.queuedDrain.notBefore.toISOString(),
      by: c.queuedDrain.actorLabel,
      reason: c.queuedDrain.reason,
    },
    health: { apiServer: c.apiServerHealth, logs: c.logsReporting, metrics: c.metricsReporting },
    workloads: c.podCount === null ? null : { pods: c.podCount, namespaces: c.namespaceCount, userPods: c.userPodCount },
    appliedPolicyRevision: c.appliedPolicyRevision,
    desiredPolicyRevision: c.desiredPolicyRevision,
    nodeCount: totalNodes(c.nodePools),
    nodePools: c.nodePools.map((p) => ({
      name: p.name,
      nodeCount: p.nodeCount,
      readyNodes: p.readyNodes,
      kubeletVersion: p.kubeletVersion,
      instanceType: p.instanceType,
      cpuCores: p.cpuCores,
      memoryGiB: p.memoryGiB,
      state: p.state,
    })),
    certificate: cert
      ? {
          serial: cert.serial,
          fingerprint: cert.fingerprint,
          notBefore: cert.notBefore.toISOString(),
          notAfter: cert.notAfter.toISOString(),
          revoked: !!cert.revokedAt,
        }
      : null,
    enrollment: {
      complete: checklist.every((i) => i.ok),
      enrolledAt: c.enrolledAt?.toISOString() ?? null,
      // "since" comes from the evaluator's record; an item whose state it has not seen yet has none.
      items: checklist.map((i) => {
        const stored = parseStored(c.enrollment)[i.key];
        return { ...i, since: stored?.state === i.state ? stored.since : null };
      }),
    },
    failedDirectives: c.directives.map((d) => ({
      id: d.id,
      type: d.type,
      reason: d.failedReason ?? "",
      at: d.ackedAt?.toISOString() ?? null,
    })),
    groups: groups.map((g) => ({ id: g.id, name: g.name })),
    events: events.map((e) => ({ kind: e.kind, from: e.fromValue, to: e.toValue, reason: e.reason, at: e.at.toISOString() })),
    notReadyThresholdSeconds: settings.notReadyThresholdSeconds,
    reasons: clusterReasons(
      { ...c, labels, statusChangesLastHour: changes.get(id) ?? 0, sameClusterAs: sameCluster.get(id) },
      settings,
      now,
    ),
    factsAsOf: factsAsOf(c, now, settings.notReadyThresholdSeconds)?.toISOString() ?? null,
  };
}
