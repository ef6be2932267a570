import "server-only";
import type { AuditEntry, AuditFilter, AuditQuery } from "@/lib/contracts/audit";
import { db, type Db } from "@/lib/server/db/client";
import { targetIdsNamed, targetNames } from "./target-names";
import type { Selector } from "@/lib/domain/selector";
import { clusterIdsInScope } from "@/lib/server/clusters/cluster-list-sql";

type AuditWhere = NonNullable<NonNullable<Parameters<Db["auditLog"]["findMany"]>[0]>["where"]>;

/**
 * What a caller with team roles only may read of the log: entries about the clusters in their
 * teams' scopes, about their teams (members, scope) and about what their teams own (tokens,
 * rollouts, webhook subscriptions, saved views). Null: a fleet role, everything.
 */
export type AuditReach = {
  clusterIds: readonly string[];
  teamIds: readonly string[];
  /** ids by audit target type */
  owned: Readonly<Record<OwnedTarget, readonly string[]>>;
} | null;

type OwnedTarget = "registrationToken" | "rollout" | "webhook" | "view";

export async function auditReach(scope: readonly Selector[] | null, teamIds: readonly string[]): Promise<AuditReach> {
  if (!scope) return null;
  const ofTeams = { where: { teamId: { in: [...teamIds] } }, select: { id: true as const } };
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
  const [clusterIds, tokens, rollouts, webhooks, views] = await Promise.all([
    clusterIdsInScope(scope),
    db().registrationToken.findMany(ofTeams),
    db().rollout.findMany(ofTeams),
    db().webhookSubscription.findMany(ofTeams),
    db().savedView.findMany(ofTeams),
  ]);
  return {
    clusterIds: [...clusterIds],
    teamIds,
    owned: { registrationToken: ids(tokens), rollout: ids(rollouts), webhook: ids(webhooks), view: ids(views) },
  };
}

/**
 * The database filter for an audit query, evaluated on the server: actor and action are
 * prefixes; target is a prefix of the target's id or of its name; from is inclusive, to exclusive.
 * `reach` bounds it to a team member's clusters, teams and what their teams own.
 */
export async function auditWhere(q: AuditFilter, reach: AuditReach = null): Promise<AuditWhere> {
  const named = q.target ? await targetIdsNamed(q.target) : [];
  const filter: AuditWhere = {
    ...(q.actor ? { actorLabel: { startsWith: q.actor } } : {}),
    ...(q.action ? { action: { startsWith: q.action } } : {}),
    ...(q.target ? { OR: [{ targetId: { startsWith: q.target } }, ...(named.length ? [{ targetId: { in: named } }] : [])] } : {}),
    ...(q.from || q.to ? { at: { ...(q.from ? { gte: new Date(q.from) } : {}), ...(q.to ? { lt: new Date(q.to) } : {}) } } : {}),
  };
  if (!reach) return filter;
  return {
    AND: [
      filter,
      {
        OR: [
          { targetType: "cluster", targetId: { in: [...reach.clusterIds] } },
          { targetType: "team", targetId: { in: [...reach.teamIds] } },
          ...Object.entries(reach.owned)
            .filter(([, ids]) => ids.length)
            .map(([targetType, ids]) => ({ targetType, targetId: { in: [...ids] } })),
        ],
      },
    ],
  };
}

/** Audit rows as the API shows them: ISO times, parsed details, the target's name. */
export async function auditEntries(
  rows: readonly {
    id: number;
    at: Date;
    actorType: string;
    actorLabel: string;
    action: string;
    targetType: string | null;
    targetId: string | null;
    details: string;
  }[],
): Promise<AuditEntry[]> {
  const parsed = rows.map((r) => ({ ...r, details: safeJson(r.details) }));
  const names = await targetNames(parsed);
  return parsed.map((r, i) => ({
    id: r.id,
    at: r.at.toISOString(),
    actorType: r.actorType,
    actor: r.actorLabel,
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    targetName: names[i] ?? null,
    details: r.details,
  }));
}

/** Newest first, keyset-paginated by id. */
export async function listAudit(
  q: AuditQuery,
  reach: AuditReach = null,
): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const where = await auditWhere(q, reach);
  const rows = await db().auditLog.findMany({
    where: q.cursor ? { AND: [where, { id: { lt: q.cursor } }] } : where,
    orderBy: { id: "desc" },
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  return {
    items: await auditEntries(page),
    nextCursor: rows.length > q.limit ? String(page[page.length - 1]!.id) : null,
  };
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
