import "server-only";
import type { Webhook, WebhookDelivery } from "@/lib/contracts/webhooks";
import type { ReplyOf } from "@/lib/contracts/route";
import type { webhookRoutes } from "@/lib/contracts/webhooks";
import { teamEventsProblem, type WebhookCreate, type WebhookPatch, type WebhookPayload } from "@/lib/domain/webhooks";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { refuseForbiddenTarget } from "@/lib/server/net/check-target";
import { enqueueWebhookEvent } from "./enqueue-webhook";
import { WEBHOOK_RULE } from "./post-webhook";
import { newWebhookSecret, storeWebhookSecret } from "./webhook-secret";

// An admin's webhook subscriptions: create (the secret shown once), change, delete, rotate the
// secret, send a test event, read the delivery log. Every change is audited; the URL is checked
// against server-side request forgery here and again at every delivery. A subscription a team owns
// (teamId) is its admins' to manage, and hears only of the team's clusters (enqueue-webhook.ts).

type Row = {
  id: string;
  url: string;
  events: string;
  format: string;
  enabled: boolean;
  selector: string | null;
  legacySignature: boolean;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  teamId: string | null;
};
type DeliveryRow = {
  id: string;
  eventType: string;
  clusterId: string | null;
  payload: string;
  state: string;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
};

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The team a subscription belongs to. */
type OwningTeam = { id: string; name: string };

/** The cluster's name as the event recorded it (the cluster may be gone since). */
function clusterOf(d: DeliveryRow, existing: ReadonlySet<string>): WebhookDelivery["cluster"] {
  if (!d.clusterId) return null;
  let name = d.clusterId;
  try {
    name = (JSON.parse(d.payload) as WebhookPayload).cluster?.name ?? name;
  } catch {
    // A payload that does not parse still names the cluster by its id.
  }
  return { id: d.clusterId, name, removed: !existing.has(d.clusterId) };
}

function deliveryView(d: DeliveryRow, existing: ReadonlySet<string>): ReplyOf<typeof webhookRoutes.test> {
  return {
    id: d.id,
    eventType: d.eventType as WebhookDelivery["eventType"],
    clusterId: d.clusterId,
    cluster: clusterOf(d, existing),
    state: d.state as WebhookDelivery["state"],
    attempts: d.attempts,
    createdAt: d.createdAt.toISOString(),
    nextAttemptAt: d.state === "pending" ? d.nextAttemptAt.toISOString() : null,
    lastAttemptAt: iso(d.lastAttemptAt),
    lastStatusCode: d.lastStatusCode,
    lastLatencyMs: d.lastLatencyMs,
    lastError: d.lastError,
    deliveredAt: iso(d.deliveredAt),
  };
}

/** The teams that own these subscriptions, by id (a team deleted since is left out). */
async function owners(rows: Row[]): Promise<Map<string, OwningTeam>> {
  const ids = [...new Set(rows.flatMap((r) => (r.teamId ? [r.teamId] : [])))];
  if (!ids.length) return new Map();
  const teams = await db().team.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(teams.map((t) => [t.id, t]));
}

async function views(rows: Row[]): Promise<ReplyOf<typeof webhookRoutes.get>[]> {
  const teams = await owners(rows);
  // The newest attempted delivery of each (a few subscriptions: one small query each).
  const last = await Promise.all(
    rows.map((r) =>
      db().webhookDelivery.findFirst({
        where: { subscriptionId: r.id, lastAttemptAt: { not: null } },
        orderBy: { lastAttemptAt: "desc" },
        select: { state: true, lastStatusCode: true, lastAttemptAt: true, eventType: true },
      }),
    ),
  );
  return rows.map((r, i) => {
    const l = last[i];
    return {
      id: r.id,
      url: r.url,
      events: JSON.parse(r.events) as Webhook["events"],
      format: r.format as Webhook["format"],
      enabled: r.enabled,
      selector: r.selector,
      legacySignature: r.legacySignature,
      createdBy: r.createdBy,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
      // A team deleted since: still its, named by its id (only fleet admins see it now).
      team: r.teamId ? (teams.get(r.teamId) ?? { id: r.teamId, name: r.teamId }) : null,
      lastDelivery: l
        ? {
            state: l.state as WebhookDelivery["state"],
            lastStatusCode: l.lastStatusCode,
            lastAttemptAt: iso(l.lastAttemptAt),
            eventType: l.eventType as WebhookDelivery["eventType"],
          }
        : null,
    };
  });
}

async function findRow(id: string): Promise<Row> {
  const row = await db().webhookSubscription.findUnique({ where: { id } });
  if (!row) throw new ApiError("not_found", "No webhook subscription has this id.");
  return row;
}

/** Every subscription, or (`teamIds`) only those these teams own. */
export async function listWebhooks(teamIds: readonly string[] | null = null) {
  return views(
    await db().webhookSubscription.findMany({
      where: teamIds ? { teamId: { in: [...teamIds] } } : {},
      orderBy: { createdAt: "asc" },
    }),
  );
}

/** A team's subscription hears only of labelled events: asking for the others is refused, not left to never fire. */
function refuseFleetEvents(events: readonly string[]) {
  const problem = teamEventsProblem(events);
  if (problem) throw new ApiError("invalid_request", problem, [{ field: "events", message: problem }]);
}

export async function getWebhook(id: string) {
  const [view] = await views([await findRow(id)]);
  return view!;
}

/** `team`: the team that will own it (lib/server/teams/acting-team.ts checked the caller may make it for them); null: the fleet's. */
export async function createWebhook(actor: Actor, input: WebhookCreate, team: OwningTeam | null = null) {
  if (team) refuseFleetEvents(input.events);
  await refuseForbiddenTarget(input.url, WEBHOOK_RULE, "url");
  const secret = newWebhookSecret();
  const row = await inTransaction(async (tx) => {
    const created = await tx.webhookSubscription.create({
      data: {
        url: input.url,
        events: JSON.stringify(input.events),
        format: input.format,
        enabled: input.enabled,
        selector: input.selector ?? null,
        legacySignature: input.legacySignature ?? false,
        secret: storeWebhookSecret(secret),
        createdBy: actor.label,
        teamId: team?.id ?? null,
      },
    });
    await recordAudit(
      tx,
      actor,
      "webhook.create",
      { type: "webhook", id: created.id },
      {
        url: input.url,
        events: input.events,
        format: input.format,
        enabled: input.enabled,
        // Only a scoped subscription says so, and only one sent the replayable header: the others read as they always have.
        ...(input.selector ? { selector: input.selector } : {}),
        ...(input.legacySignature ? { legacySignature: true } : {}),
        ...(team ? { team: team.name } : {}),
      },
    );
    return created;
  });
  const [view] = await views([row]);
  return { ...view!, secret };
}

export async function updateWebhook(actor: Actor, id: string, patch: WebhookPatch) {
  const before = await findRow(id);
  if (before.teamId && patch.events) refuseFleetEvents(patch.events);
  if (patch.url !== undefined) await refuseForbiddenTarget(patch.url, WEBHOOK_RULE, "url");
  const row = await inTransaction(async (tx) => {
    const updated = await tx.webhookSubscription.update({
      where: { id },
      data: {
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
        ...(patch.format !== undefined ? { format: patch.format } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        ...(patch.selector !== undefined ? { selector: patch.selector } : {}),
        ...(patch.legacySignature !== undefined ? { legacySignature: patch.legacySignature } : {}),
      },
    });
    const changes = Object.fromEntries(
      (["url", "events", "format", "enabled", "selector", "legacySignature"] as const)
        .filter((k) => patch[k] !== undefined)
        .map((k) => [k, { from: k === "events" ? JSON.parse(before.events) : before[k], to: patch[k] }]),
    );
    await recordAudit(tx, actor, "webhook.update", { type: "webhook", id }, { changes });
    return updated;
  });
  const [view] = await views([row]);
  return view!;
}

export async function deleteWebhook(actor: Actor, id: string) {
  const row = await findRow(id);
  await inTransaction(async (tx) => {
    // Its deliveries go with it (cascade): pending ones are not sent.
    await tx.webhookSubscription.delete({ where: { id } });
    await recordAudit(tx, actor, "webhook.delete", { type: "webhook", id }, { url: row.url });
  });
}

export async function rotateWebhookSecret(actor: Actor, id: string) {
  await findRow(id);
  const secret = newWebhookSecret();
  const row = await inTransaction(async (tx) => {
    const updated = await tx.webhookSubscription.update({ where: { id }, data: { secret: storeWebhookSecret(secret) } });
    await recordAudit(tx, actor, "webhook.rotateSecret", { type: "webhook", id });
    return updated;
  });
  const [view] = await views([row]);
  return { ...view!, secret };
}

/** Queues a webhook.test to this subscription (enabled or not: a disabled one's waits until it is enabled). */
export async function sendTestWebhook(actor: Actor, id: string) {
  await findRow(id);
  const occurredAt = new Date();
  const delivery = await inTransaction(async (tx) => {
    await enqueueWebhookEvent(tx, {
      type: "webhook.test",
      data: { requestedBy: actor.label },
      occurredAt,
      subscriptionIds: [id],
    });
    await recordAudit(tx, actor, "webhook.test", { type: "webhook", id });
    return tx.webhookDelivery.findFirstOrThrow({ where: { subscriptionId: id }, orderBy: { seq: "desc" } });
  });
  return deliveryView(delivery, new Set());
}

export async function listDeliveries(id: string, limit: number, state?: WebhookDelivery["state"]) {
  await findRow(id);
  const rows = await db().webhookDelivery.findMany({
    where: { subscriptionId: id, ...(state ? { state } : {}) },
    orderBy: { seq: "desc" },
    take: limit,
  });
  // Which of the clusters named are still registered (one query for the page): the others are not linked.
  const ids = [...new Set(rows.flatMap((r) => (r.clusterId ? [r.clusterId] : [])))];
  const existing = ids.length
    ? new Set((await db().cluster.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((c) => c.id))
    : new Set<string>();
  return rows.map((r) => deliveryView(r, existing));
}
