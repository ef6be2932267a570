// The webhook outbox as tests drive it: a labelled cluster to raise events about, a NotReady
// transition enqueued as the sweeper does, and what was queued for a subscription.
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { enqueueStatusWebhooks } from "@/lib/server/webhooks/enqueue-webhook";

export async function seedCluster(id: string, labels: Record<string, string>) {
  await db().cluster.create({
    data: {
      id,
      name: `${id}-name`,
      phase: "Active",
      status: "Ready",
      lastHeartbeatAt: new Date(),
      agentVersion: "1.4.0",
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
    },
  });
}

/** A Ready -> NotReady transition of a seeded cluster, enqueued in its own transaction. */
export const notReady = (id: string) =>
  inTransaction((tx) =>
    enqueueStatusWebhooks(tx, {
      cluster: { id, name: `${id}-name` },
      from: "Ready",
      to: "NotReady",
      reason: "no heartbeat",
      at: new Date(),
    }),
  );

/** The (event, cluster) pairs queued for a subscription, oldest first. */
export async function queued(subscriptionId: string): Promise<string[]> {
  const rows = await db().webhookDelivery.findMany({ where: { subscriptionId }, orderBy: { seq: "asc" } });
  return rows.map((r) => `${r.eventType}:${r.clusterId ?? "fleet"}`);
}
