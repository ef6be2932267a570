import "server-only";
import { heartbeatRequestSchema, plainHeartbeat } from "@/lib/domain/agent-protocol";
import { clusterStatus, type ClusterStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { db } from "@/lib/server/db/client";
import { columns, readOnDriver, sql } from "@/lib/server/db/sql";
import { heartbeatContext, invalidateHeartbeatContext } from "./heartbeat-context";
import { getSettings } from "@/lib/server/settings/settings";
import type { AgentIdentity } from "@/lib/server/agent-port/agent-identity";
import { markFirstUse } from "@/lib/server/pki/retire-certificates";
import { enqueueHeartbeat } from "./heartbeat-writer";
import { noteCapabilities } from "./agent-capabilities";
import { checkLeaseHolder } from "./lease-holder";
import { caState } from "@/lib/server/pki/current-ca";
import { heartbeatCaFields } from "@/lib/server/pki/ca-rollover";
import { onPrimary } from "@/lib/server/agent-port/workers/primary-calls";

const cluster = columns("Cluster");

export type Directive = { id: string; type: string } & Record<string, unknown>;

export type HeartbeatResponse = {
  status: ClusterStatus;
  heartbeatIntervalSeconds: number;
  desiredPolicyRevision: string | null;
  directives: Directive[];
  /** During a fleet CA rollover: every trusted CA as one PEM bundle (optional field, PROTOCOL v1). */
  caBundle?: string;
};

/**
 * POST /api/agent/v1/heartbeat. Kept lean: no query in the steady state (identity and context
 * come from snapshots refreshed at most once a second), acknowledgements written at once,
 * the reported facts queued for the batched writer.
 */
export async function recordHeartbeat(agent: AgentIdentity, body: unknown): Promise<HeartbeatResponse> {
  const hb = parseWith(heartbeatRequestSchema, body, "request body", plainHeartbeat);
  const now = new Date();
  const settings = await getSettings();
  if (agent.firstUse) {
    // Also the moment to notice a cluster removed since its certificate was cached.
    const present = await readOnDriver(
      sql`SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${cluster("id")} = ${agent.clusterId}`,
    );
    if (!present.length) {
      throw new ApiError("cluster_deregistered", "This cluster was deregistered; stop the agent and delete its state.");
    }
    await markFirstUse(agent);
  }
  // Before anything is recorded: a stale holder's acks and facts are not the cluster's.
  await checkLeaseHolder(agent.clusterId, hb.lease, now);
  const context = await heartbeatContext(agent.clusterId);
  // Cached for 2 s like the context: no query in the steady state.
  const ca = heartbeatCaFields(await caState(), agent, hb.capabilities, now);

  const failed = new Map<string, { reason: string; code: string | null }>();
  for (const a of hb.acks) if (typeof a !== "string") failed.set(a.id, { reason: a.reason, code: a.code ?? null });
  const acked = new Set(hb.acks.map((a) => (typeof a === "string" ? a : a.id)));
  if (acked.size) {
    const open = context.directives.filter((d) => acked.has(d.id)).map((d) => d.id);
    const done = open.filter((id) => !failed.has(id));
    if (open.length) {
      await closeDirectives(
        agent.clusterId,
        done,
        open.filter((id) => failed.has(id)).map((id) => ({ id, ...failed.get(id)! })),
        now,
      );
      invalidateHeartbeatContext();
    }
  }
  const capable = hb.capabilities ? new Set(hb.capabilities) : null;
  noteCapabilities(agent.clusterId, hb.capabilities, now);

  enqueueHeartbeat(agent.clusterId, {
    at: now,
    agentVersion: hb.agentVersion,
    kubernetesVersion: hb.kubernetesVersion ?? null,
    // A part the agent has not read yet is absent: null keeps the stored one (heartbeat-writer.ts).
    apiServerHealth: hb.health?.apiServer ?? null,
    logsReporting: hb.health?.logs ?? null,
    metricsReporting: hb.health?.metrics ?? null,
    podCount: hb.workloads?.pods ?? null,
    userPodCount: hb.workloads?.userPods ?? null,
    namespaceCount: hb.workloads?.namespaces ?? null,
    appliedPolicyRevision: hb.policy ? hb.policy.appliedRevision : undefined,
    nodePools: hb.nodePools ?? null,
    ...(hb.clusterUid ? { clusterUid: hb.clusterUid } : {}),
  });

  return {
    status: clusterStatus(
      // Health not read yet counts as not down, as a cluster with no report does.
      { phase: context.phase ?? "Active", lastHeartbeatAt: now, apiServerHealth: hb.health?.apiServer ?? null },
      now,
      settings.notReadyThresholdSeconds,
    ),
    heartbeatIntervalSeconds: settings.heartbeatIntervalSeconds,
    // Out-of-sync clusters get what they should run; the rest already run it.
    desiredPolicyRevision:
      "desiredPolicyRevision" in context ? (context.desiredPolicyRevision ?? null) : (hb.policy?.appliedRevision ?? null),
    directives: [
      ...context.directives
        .filter((d) => !acked.has(d.id) && (!capable || capable.has(d.type)))
        .map((d) => ({ ...(JSON.parse(d.payload) as Record<string, unknown>), id: d.id, type: d.type })),
      ...(ca.directive ? [ca.directive] : []),
    ],
    ...(ca.caBundle ? { caBundle: ca.caBundle } : {}),
  };
}

/** Acknowledged directives closed; a failed ack closes one too (it is not sent again), with the agent's reason. */
const closeDirectives = onPrimary(
  "close-directives",
  async (clusterId: string, done: string[], failed: { id: string; reason: string; code: string | null }[], now: Date) => {
    if (done.length) {
      await db().directive.updateMany({
        where: { id: { in: done }, clusterId, ackedAt: null },
        data: { ackedAt: now },
      });
    }
    for (const f of failed) {
      await db().directive.updateMany({
        where: { id: f.id, clusterId, ackedAt: null },
        data: { ackedAt: now, failedReason: f.reason, failedCode: f.code },
      });
    }
  },
);
