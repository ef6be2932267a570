import "server-only";
import type { z } from "zod";
import type { attemptsQuerySchema, RefusalSummary } from "@/lib/contracts/tokens";
import { DEFERRED_RESULT, PENDING_APPROVAL } from "@/lib/domain/registration-errors";
import { storableText } from "@/lib/domain/storable-text";
import { RefusalBudget, UNRECORDED_RESULTS } from "@/lib/domain/refusal-budget";
import { db, type Tx } from "@/lib/server/db/client";
import { columns, insertInto, list, queryRows, sql, type Sql } from "@/lib/server/db/sql";
import { processSingleton } from "@/lib/server/process-singletons";
import { deferredAttempts } from "./deferred-attempts";

export type AttemptRecord = {
  result: string;
  sourceAddress: string | null;
  tokenId?: string | null;
  clusterName?: string | null;
  clusterId?: string | null;
  message?: string | null;
};

const text = (value: string | null | undefined, max: number) => (value == null ? null : storableText(value, max));

/**
 * An attempt as the log stores it, odd characters escaped (never lost to the insert): the row any
 * writer of the attempts log writes, in a transaction of its own or through recordAttempt.
 */
export function attemptRow(a: AttemptRecord) {
  return {
    result: a.result,
    sourceAddress: text(a.sourceAddress, 64),
    tokenId: text(a.tokenId, 64),
    clusterName: text(a.clusterName, 63),
    clusterId: text(a.clusterId, 64),
    message: text(a.message, 300),
  };
}

/** An attempt written in the caller's transaction, with what it records (a registration, a request recorded or collected). */
export async function recordAttemptIn(tx: Tx, a: AttemptRecord): Promise<void> {
  await tx.registrationAttempt.create({ data: attemptRow(a) });
}

/** The same row as one statement of a caller's raw batch (a new cluster's one-statement write). */
export function attemptInsert(a: AttemptRecord, at: Date): Sql {
  return insertInto("RegistrationAttempt", [{ at, ...attemptRow(a) }]);
}

function refusalBudget(): RefusalBudget {
  return processSingleton("registration-refusal-budget", () => new RefusalBudget());
}

/**
 * Records a refused registration (the one door for refusals outside a transaction): a row of its
 * own while its source (and token) is within its budget, else counted in the source's row of the
 * minute and written in a batch (lib/domain/refusal-budget.ts). A 429 writes nothing.
 * `tokenId`: only a token whose secret matched (RegistrationTrace).
 */
export async function recordAttempt(a: AttemptRecord, now = new Date()): Promise<void> {
  if (UNRECORDED_RESULTS.has(a.result)) return;
  if (refusalBudget().take(a.sourceAddress, a.tokenId ?? null, now.getTime()) === "count") {
    deferredAttempts().count({ ...a, tokenId: a.tokenId ?? null, message: a.message ?? null, at: now });
    return;
  }
  await db().registrationAttempt.create({ data: attemptRow(a) });
}

/** The ids of the tokens these teams minted: the attempts a team's members may read are those made with them. */
export async function tokensOfTeams(teamIds: readonly string[]): Promise<string[]> {
  if (!teamIds.length) return [];
  const rows = await db().registrationToken.findMany({ where: { teamId: { in: [...teamIds] } }, select: { id: true } });
  return rows.map((r) => r.id);
}

/** A page of attempts, newest first; `tokenIds`: only those made with these tokens (a team's), null: all. */
export async function listAttempts(q: z.infer<typeof attemptsQuerySchema>, tokenIds: readonly string[] | null = null) {
  const rows = await db().registrationAttempt.findMany({
    where: {
      ...(tokenIds ? { tokenId: { in: [...tokenIds] } } : {}),
      ...(q.result ? { result: q.result } : {}),
      ...(q.tokenId ? { tokenId: q.tokenId } : {}),
      ...(q.since ? { at: { gte: new Date(q.since) } } : {}),
      ...(q.cursor ? { id: { lt: q.cursor } } : {}),
    },
    orderBy: { id: "desc" },
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  return {
    items: page.map((r) => ({ ...r, at: r.at.toISOString() })),
    nextCursor: rows.length > q.limit ? String(page[page.length - 1]!.id) : null,
  };
}

/** Results that are not refusals: a registration, a wait for approval, a deferral for load. */
const NOT_REFUSED = ["ok", PENDING_APPROVAL, DEFERRED_RESULT];
const REFUSAL_WINDOW_MINUTES = 60;
const TOP_SOURCES = 5;
const attempts = columns("RegistrationAttempt");

/** Refused registrations of the last hour (counted rows summed): how many, from how many sources, and the top ones. */
export async function summarizeRefusals(now = new Date(), tokenIds: readonly string[] | null = null): Promise<RefusalSummary> {
  const since = new Date(now.getTime() - REFUSAL_WINDOW_MINUTES * 60_000);
  if (tokenIds && !tokenIds.length)
    return { since: since.toISOString(), windowMinutes: REFUSAL_WINDOW_MINUTES, refused: 0, sources: 0, topSources: [] };
  const where = { at: { gte: since }, result: { notIn: NOT_REFUSED }, ...(tokenIds ? { tokenId: { in: [...tokenIds] } } : {}) };
  const [total, top, distinct] = await Promise.all([
    db().registrationAttempt.aggregate({ where, _sum: { count: true } }),
    db().registrationAttempt.groupBy({
      by: ["sourceAddress"],
      where,
      _sum: { count: true },
      orderBy: { _sum: { count: "desc" } },
      take: TOP_SOURCES,
    }),
    // Refusals whose address is unknown are a source of their own (COUNT(DISTINCT) skips NULL):
    // else the page would name one address as the source of every refusal.
    queryRows<{ n: number | bigint }>(
      sql`SELECT COUNT(DISTINCT ${attempts("sourceAddress")}) + MAX(CASE WHEN ${attempts("sourceAddress")} IS NULL THEN 1 ELSE 0 END) AS n
          FROM ${attempts.table}
          WHERE ${attempts("at")} >= ${since} AND ${attempts("result")} NOT IN (${list(NOT_REFUSED)})
          ${tokenIds ? sql`AND ${attempts("tokenId")} IN (${list(tokenIds)})` : sql``}`,
    ),
  ]);
  return {
    since: since.toISOString(),
    windowMinutes: REFUSAL_WINDOW_MINUTES,
    refused: total._sum.count ?? 0,
    sources: Number(distinct[0]?.n ?? 0),
    topSources: top.map((t) => ({ sourceAddress: t.sourceAddress, refused: t._sum.count ?? 0 })),
  };
}
