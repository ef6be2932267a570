import "server-only";
import { randomUUID } from "node:crypto";
import {
  flappingDue,
  inWebhookScope,
  NOT_READY_HOLD_MS,
  webhookScope,
  withinNotReadyHold,
  type WebhookEventType,
  type WebhookPayload,
  type WebhookScope,
  type WebhookTeamScope,
} from "@/lib/domain/webhooks";
import { storedScope } from "@/lib/domain/teams";
import type { HealthStatus } from "@/lib/domain/status";
import type { Db, Tx } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { SNOOZE_SELECT, snoozeView } from "@/lib/domain/cluster-snooze";
import { env } from "@/lib/env";

// The outbox's writer. Events are enqueued in the transaction of the change they report (a
// status transition, a removal, a rollout pause), so an event is never sent for a change that
// rolled back and never lost for one that committed; the webhook-delivery job posts them.

export type WebhookEvent = {
  type: WebhookEventType;
  /** The cluster it is about: its labels are read here, when anyone subscribes. */
  cluster?: { id: string; name: string };
  /**
   * The labels of what the event is about, when the caller has them: a cluster the database no
   * longer holds them for (a removal deletes them in the same transaction, before the event is
   * written), or a registration request (no cluster yet). Without them and without a cluster the
   * event carries no labels, and only unscoped subscriptions are sent it.
   */
  labels?: Record<string, string>;
  data: Record<string, unknown>;
  occurredAt: Date;
  /** Held this long before the first attempt (a debounced NotReady). */
  holdMs?: number;
  /** Enqueued once per subscription and key (events a job finds again on each run). */
  dedupeKey?: string;
  /** Only these subscriptions, whatever their scope (a test event); otherwise every enabled one that asks for the type. */
  subscriptionIds?: string[];
};

/**
 * `scope`: its selector, parsed; `team`: for a team's subscription, the team's scope as read with
 * it (lib/domain/webhooks.ts inWebhookScope).
 */
export type Subscriber = { id: string; events: string[]; scope: WebhookScope; team: WebhookTeamScope };

/**
 * The enabled subscriptions, their event types and, for a team's, the team's scope now (a few
 * rows: read once per change, or per batch of transitions).
 */
export async function enabledSubscriptions(client: Db | Tx): Promise<Subscriber[]> {
  const subs = await client.webhookSubscription.findMany({
    where: { enabled: true },
    select: { id: true, events: true, selector: true, teamId: true },
  });
  const teamIds = [...new Set(subs.flatMap((s) => (s.teamId ? [s.teamId] : [])))];
  const teams = teamIds.length
    ? await client.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, selector: true } })
    : [];
  const scopes = new Map(teams.map((t) => [t.id, storedScope(t.selector)]));
  return subs.map((s) => ({
    id: s.id,
    events: JSON.parse(s.events) as string[],
    scope: webhookScope(s.selector),
    team: s.teamId ? (scopes.get(s.teamId) ?? "none") : null,
  }));
}

const wanting = (subs: Subscriber[], type: WebhookEventType) => subs.filter((s) => s.events.includes(type));

const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === "P2002";

/** The labels the event is about: given, else its cluster's as stored now; null when it is about nothing labelled. */
async function labelsOf(client: Db | Tx, event: WebhookEvent): Promise<Record<string, string> | null> {
  if (event.labels) return event.labels;
  if (!event.cluster) return null;
  const rows = await client.clusterLabel.findMany({
    where: { clusterId: event.cluster.id },
    select: { key: true, value: true },
  });
  return Object.fromEntries(rows.map((l) => [l.key, l.value]));
}

/** The cluster's page in the console, absolute (the configured public URL), for a receiver to link to. */
export function clusterPageUrl(id: string): string {
  return new URL(`/clusters/${encodeURIComponent(id)}`, env().authUrl).toString();
}

type ClusterContext = { owner: string | null; notes: string | null; snooze: ReturnType<typeof snoozeView> };

/** What a payload tells of its cluster besides labels, and its snooze; null when the cluster is gone (a removal). */
async function clusterContext(client: Db | Tx, id: string, at: Date): Promise<ClusterContext | null> {
  const c = await client.cluster.findUnique({ where: { id }, select: { owner: true, notes: true, ...SNOOZE_SELECT } });
  return c && { owner: c.owner, notes: c.notes, snooze: snoozeView(c, at) };
}

/**
 * Writes one delivery per subscriber in scope; returns how many. Pass the transaction of the
 * change, and the enabled subscriptions when the caller has read them already.
 */
export async function enqueueWebhookEvent(
  client: Db | Tx,
  event: WebhookEvent,
  exclude: ReadonlySet<string> = new Set(),
  subs?: Subscriber[],
) {
  const wanted: Pick<Subscriber, "id" | "scope" | "team">[] = event.subscriptionIds
    ? event.subscriptionIds.map((id) => ({ id, scope: null, team: null })) // asked for by name: sent whatever the scope
    : wanting(subs ?? (await enabledSubscriptions(client)), event.type);
  const candidates = wanted.filter((s) => !exclude.has(s.id));
  if (!candidates.length) return 0;
  const labels = await labelsOf(client, event);
  // Scoped subscriptions hear only of what their selector matches now; a team's, only of what its
  // team's scope takes in now.
  const subscribers = candidates.filter((s) => inWebhookScope(s.scope, labels, s.team));
  if (!subscribers.length) return 0;
  const context = event.cluster ? await clusterContext(client, event.cluster.id, event.occurredAt) : null;
  // A snoozed cluster's alerts are kept in the delivery log as suppressed, never sent (a test event still goes).
  const snoozed = event.subscriptionIds ? null : context?.snooze;
  let written = 0;
  for (const { id: subscriptionId } of subscribers) {
    const id = randomUUID();
    const payload: WebhookPayload = {
      id,
      type: event.type,
      occurredAt: event.occurredAt.toISOString(),
      ...(event.cluster
        ? {
            cluster: {
              ...event.cluster,
              labels: labels ?? {},
              owner: context?.owner ?? null,
              notes: context?.notes ?? null,
              url: clusterPageUrl(event.cluster.id),
            },
          }
        : {}),
      data: event.data,
    };
    const row = {
      id,
      subscriptionId,
      eventType: event.type,
      clusterId: event.cluster?.id ?? null,
      payload: JSON.stringify(payload),
      dedupeKey: event.dedupeKey ?? null,
      nextAttemptAt: new Date(event.occurredAt.getTime() + (event.holdMs ?? 0)),
      createdAt: event.occurredAt,
      ...(snoozed
        ? {
            state: "suppressed",
            lastError: `Cluster snoozed until ${snoozed.until} by ${snoozed.by ?? "an operator"}: ${snoozed.reason}`,
          }
        : {}),
    };
    try {
      await client.webhookDelivery.create({ data: row });
      written++;
    } catch (err) {
      // Deduplicated events come from jobs outside a transaction: another instance wrote it first.
      if (!(event.dedupeKey && isUniqueViolation(err))) throw err;
    }
  }
  return written;
}

const HOUR_MS = 3_600_000;

/**
 * The webhooks of one status transition, in the sweeper's transaction: NotReady is held for
 * NOT_READY_HOLD_MS; Ready again cancels a NotReady still held (neither is sent) or is sent;
 * more changes in the last hour than flappingThresholdPerHour send cluster.flapping, once an hour.
 * `subscribers`: the enabled subscriptions, when the caller has read them for a batch.
 */
export async function enqueueStatusWebhooks(
  tx: Tx,
  t: { cluster: { id: string; name: string }; from: HealthStatus; to: HealthStatus; reason: string; at: Date },
  subscribers?: Subscriber[],
) {
  // A fleet without subscriptions pays one small query per transition (or per batch).
  const subs = subscribers ?? (await enabledSubscriptions(tx));
  if (!subs.length) return;
  const data = { from: t.from, to: t.to, reason: t.reason };
  if (t.to === "NotReady") {
    await enqueueWebhookEvent(
      tx,
      {
        type: "cluster.notReady",
        cluster: t.cluster,
        data,
        occurredAt: t.at,
        holdMs: NOT_READY_HOLD_MS,
      },
      undefined,
      subs,
    );
  } else if (t.to === "Ready" && t.from === "NotReady") {
    // Never attempted: the delivery job claims only due rows, and a held one is not due yet.
    const unsent = await tx.webhookDelivery.findMany({
      where: { clusterId: t.cluster.id, eventType: "cluster.notReady", state: "pending", attempts: 0 },
      select: { seq: true, subscriptionId: true, createdAt: true },
    });
    const suppressed = new Set<string>();
    for (const d of unsent.filter((u) => withinNotReadyHold(u.createdAt, t.at))) {
      // Conditional: a delivery job that claimed it meanwhile (a clock ahead of ours) sends it, and so the Ready.
      const cancelled = await tx.webhookDelivery.updateMany({
        where: { seq: d.seq, state: "pending", attempts: 0, leaseUntil: null },
        data: { state: "suppressed", lastError: "Ready again within the NotReady hold" },
      });
      if (cancelled.count) suppressed.add(d.subscriptionId);
    }
    await enqueueWebhookEvent(tx, { type: "cluster.ready", cluster: t.cluster, data, occurredAt: t.at }, suppressed, subs);
  }
  if (!wanting(subs, "cluster.flapping").length) return;
  const since = new Date(t.at.getTime() - HOUR_MS);
  const { flappingThresholdPerHour } = await getSettings();
  const changes = await tx.clusterEvent.count({ where: { clusterId: t.cluster.id, kind: "status", at: { gte: since } } });
  const sent = await tx.webhookDelivery.count({
    where: { clusterId: t.cluster.id, eventType: "cluster.flapping", createdAt: { gt: since } },
  });
  if (flappingDue(changes, flappingThresholdPerHour, sent > 0)) {
    await enqueueWebhookEvent(
      tx,
      {
        type: "cluster.flapping",
        cluster: t.cluster,
        data: { changesLastHour: changes, thresholdPerHour: flappingThresholdPerHour, status: t.to },
        occurredAt: t.at,
      },
      undefined,
      subs,
    );
  }
}
