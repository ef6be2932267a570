import "server-only";
import {
  CERTIFICATE_EXPIRY_WARNING_DAYS,
  REGISTRATION_FAILURE_THRESHOLD,
  REGISTRATION_FAILURE_WINDOW_MINUTES,
} from "@/lib/domain/webhooks";
import { PENDING_APPROVAL } from "@/lib/domain/registration-errors";
import { db } from "@/lib/server/db/client";
import { enqueueWebhookEvent } from "./enqueue-webhook";

// The webhook events no single write makes: found by the webhook-watch job on every instance,
// enqueued once per subscription and key (the outbox's unique dedupeKey), so instances racing and
// runs repeating send each once.

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** cluster.certificateExpiring once per certificate: a cluster's newest unrevoked one ends within 7 days. */
export async function notifyExpiringCertificates(now = new Date()): Promise<number> {
  const soon = await db().certificate.findMany({
    where: { revokedAt: null, notAfter: { gt: now, lte: new Date(now.getTime() + CERTIFICATE_EXPIRY_WARNING_DAYS * DAY_MS) } },
    select: { serial: true, notAfter: true, clusterId: true, cluster: { select: { name: true } } },
    take: 500,
  });
  if (!soon.length) return 0;
  // A cluster that already renewed holds a later certificate: its old one expiring is no news.
  const newest = await db().certificate.groupBy({
    by: ["clusterId"],
    where: { revokedAt: null, clusterId: { in: [...new Set(soon.map((c) => c.clusterId))] } },
    _max: { notAfter: true },
  });
  const latest = new Map(newest.map((n) => [n.clusterId, n._max.notAfter?.getTime()]));
  let sent = 0;
  for (const c of soon.filter((s) => latest.get(s.clusterId) === s.notAfter.getTime())) {
    sent += await enqueueWebhookEvent(db(), {
      type: "cluster.certificateExpiring",
      cluster: { id: c.clusterId, name: c.cluster.name },
      data: {
        serial: c.serial,
        notAfter: c.notAfter.toISOString(),
        daysLeft: Math.floor((c.notAfter.getTime() - now.getTime()) / DAY_MS),
      },
      occurredAt: now,
      dedupeKey: `certificate-expiring:${c.serial}`,
    });
  }
  return sent;
}

/** registration.failureRate at most once an hour: more failed registrations in the window than the threshold. */
export async function notifyRegistrationFailures(now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - REGISTRATION_FAILURE_WINDOW_MINUTES * 60_000);
  const failed = { at: { gt: since }, result: { notIn: ["ok", PENDING_APPROVAL] } };
  // A row may stand for many refusals (counted past their source's budget): sums, not row counts.
  const failures = (await db().registrationAttempt.aggregate({ where: failed, _sum: { count: true } }))._sum.count ?? 0;
  if (failures <= REGISTRATION_FAILURE_THRESHOLD) return 0;
  const byResult = await db().registrationAttempt.groupBy({
    by: ["result"],
    where: failed,
    _sum: { count: true },
  });
  return enqueueWebhookEvent(db(), {
    type: "registration.failureRate",
    data: {
      failures,
      windowMinutes: REGISTRATION_FAILURE_WINDOW_MINUTES,
      threshold: REGISTRATION_FAILURE_THRESHOLD,
      byResult: Object.fromEntries(byResult.map((r) => [r.result, r._sum.count ?? 0])),
    },
    occurredAt: now,
    dedupeKey: `registration-failures:${new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS).toISOString()}`,
  });
}

// The delivery log: finished rows (delivered, failed, suppressed) are kept 7 days and at most
// DELIVERY_LOG_ROWS per subscription; pending ones always stay.
export const DELIVERY_LOG_DAYS = 7;
export const DELIVERY_LOG_ROWS = 500;
const PRUNE_BATCH = 1_000;

export async function pruneWebhookDeliveries(now = new Date()): Promise<number> {
  const finished = { state: { not: "pending" } };
  const old = await db().webhookDelivery.findMany({
    where: { ...finished, createdAt: { lt: new Date(now.getTime() - DELIVERY_LOG_DAYS * DAY_MS) } },
    select: { seq: true },
    orderBy: { seq: "asc" },
    take: PRUNE_BATCH,
  });
  let deleted = old.length ? (await db().webhookDelivery.deleteMany({ where: { seq: { in: old.map((o) => o.seq) } } })).count : 0;
  for (const { id } of await db().webhookSubscription.findMany({ select: { id: true } })) {
    const cut = await db().webhookDelivery.findFirst({
      where: { subscriptionId: id, ...finished },
      orderBy: { seq: "desc" },
      skip: DELIVERY_LOG_ROWS,
      select: { seq: true },
    });
    if (cut)
      deleted += (await db().webhookDelivery.deleteMany({ where: { subscriptionId: id, ...finished, seq: { lte: cut.seq } } }))
        .count;
  }
  return deleted;
}
