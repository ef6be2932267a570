import "server-only";
import {
  ATTEMPT_TIMEOUT_MS,
  deliveredStatus,
  nextAttemptAt,
  webhookBody,
  type WebhookFormat,
  type WebhookPayload,
} from "@/lib/domain/webhooks";
import { webhookSignatureHeaders } from "@/lib/domain/webhook-signature";
import { db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { getSettings } from "@/lib/server/settings/settings";
import { openWebhookSecret } from "./webhook-secret";
import { postWebhook } from "./post-webhook";

// The webhook-delivery job: posts the outbox's due rows. Safe on several instances: a row is
// claimed by a conditional update that sets a lease (the claim that changes no row lost the
// race), and an instance that dies mid-attempt leaves a lease that expires, after which the row
// is attempted again with the same delivery id. Per subscription, a cluster's later event waits
// while an earlier one is pending (retrying), so each receiver sees a cluster's events in order.

const BATCH = 20;
/** A claim outlives the attempt's timeout; after it, another run may take the row. */
const LEASE_MARGIN_MS = 20_000;
const USER_AGENT = "Fleet-Registry-Webhooks/1";

export type DeliveryOptions = { now?: Date; timeoutMs?: number; random?: () => number };

/** One pass over the due deliveries; returns how many were attempted. */
export async function deliverDueWebhooks(opts: DeliveryOptions = {}): Promise<number> {
  const now = opts.now ?? new Date();
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const random = opts.random ?? Math.random;
  const unleased = [{ leaseUntil: null }, { leaseUntil: { lt: now } }];
  const due = await db().webhookDelivery.findMany({
    where: { state: "pending", nextAttemptAt: { lte: now }, OR: unleased, subscription: { enabled: true } },
    orderBy: { seq: "asc" },
    take: BATCH,
    select: {
      seq: true,
      id: true,
      subscriptionId: true,
      clusterId: true,
      eventType: true,
      payload: true,
      attempts: true,
      createdAt: true,
    },
  });
  if (!due.length) return 0;
  // Order per subscription and cluster: only the oldest pending row of each goes.
  const clusterIds = [...new Set(due.flatMap((d) => (d.clusterId ? [d.clusterId] : [])))];
  const oldest = clusterIds.length
    ? await db().webhookDelivery.groupBy({
        by: ["subscriptionId", "clusterId"],
        where: { state: "pending", clusterId: { in: clusterIds } },
        _min: { seq: true },
      })
    : [];
  const first = new Map(oldest.map((o) => [`${o.subscriptionId}\n${o.clusterId}`, o._min.seq]));
  const inOrder = due.filter((d) => !d.clusterId || first.get(`${d.subscriptionId}\n${d.clusterId}`) === d.seq);

  const leaseUntil = new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS);
  const claimed = [];
  for (const d of inOrder) {
    const claim = await db().webhookDelivery.updateMany({
      where: { seq: d.seq, state: "pending", OR: unleased },
      data: { leaseUntil },
    });
    if (claim.count) claimed.push(d);
  }
  if (!claimed.length) return 0;
  const subs = await db().webhookSubscription.findMany({
    where: { id: { in: [...new Set(claimed.map((d) => d.subscriptionId))] } },
    omit: { secret: false },
  });
  const byId = new Map(subs.map((s) => [s.id, s]));
  const { webhookAllowPrivateTargets } = await getSettings();

  await Promise.all(
    claimed.map(async (d) => {
      const sub = byId.get(d.subscriptionId);
      if (!sub) return;
      const body = webhookBody(JSON.parse(d.payload) as WebhookPayload, sub.format as WebhookFormat);
      let secret: string;
      try {
        secret = openWebhookSecret(sub.secret);
      } catch (err) {
        // A KEK mismatch is the operator's to fix; the row waits (its lease expires) rather than failing.
        log.error("webhook secret cannot be opened", {
          subscription: sub.id,
          error: err instanceof Error ? err.message : String(err),
        });
        return;
      }
      const result = await postWebhook(
        sub.url,
        body,
        {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          // Signed at the moment of sending, by the real clock (not the job's `now`): the
          // receiver holds the timestamp against its own clock, and each retry is signed afresh.
          ...webhookSignatureHeaders(secret, body, new Date(), { legacy: sub.legacySignature }),
          "x-fleet-delivery": d.id,
          "x-fleet-event": d.eventType,
        },
        { allowPrivate: webhookAllowPrivateTargets, timeoutMs },
      );
      const attempts = d.attempts + 1;
      const ok = result.statusCode !== null && deliveredStatus(result.statusCode);
      const retryAt = ok ? null : nextAttemptAt(d.createdAt, attempts, now, random());
      const state = ok ? "delivered" : retryAt ? "pending" : "failed";
      const error = result.error ?? (ok ? null : `HTTP ${result.statusCode}`);
      // Conditional on our lease: a run that outlived it must not overwrite the next claimant's result.
      await db().webhookDelivery.updateMany({
        where: { seq: d.seq, leaseUntil },
        data: {
          state,
          attempts,
          leaseUntil: null,
          lastAttemptAt: now,
          lastStatusCode: result.statusCode,
          lastLatencyMs: result.latencyMs,
          lastError: error,
          ...(ok ? { deliveredAt: now } : retryAt ? { nextAttemptAt: retryAt } : {}),
        },
      });
      // The URL is not logged: Slack's and others' carry their credential in the path.
      log.info("webhook attempt", {
        delivery: d.id,
        subscription: sub.id,
        event: d.eventType,
        attempt: attempts,
        state,
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
        ...(error ? { error } : {}),
      });
    }),
  );
  return claimed.length;
}
