import "server-only";
import type { z } from "zod";
import type { attemptsQuerySchema } from "@/lib/contracts/tokens";
import { db } from "@/lib/server/db/client";

export type AttemptRecord = {
  result: string;
  sourceAddress: string | null;
  tokenId?: string | null;
  clusterName?: string | null;
  clusterId?: string | null;
  message?: string | null;
};

export async function recordAttempt(a: AttemptRecord): Promise<void> {
  await db().registrationAttempt.create({
    data: {
      result: a.result,
      sourceAddress: a.sourceAddress?.slice(0, 64) ?? null,
      tokenId: a.tokenId?.slice(0, 64) ?? null,
      clusterName: a.clusterName?.slice(0, 63) ?? null,
      clusterId: a.clusterId ?? null,
      message: a.message?.slice(0, 300) ?? null,
    },
  });
}

export async function listAttempts(q: z.infer<typeof attemptsQuerySchema>) {
  const rows = await db().registrationAttempt.findMany({
    where: {
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

// Bounded retention: attempts are for diagnosing recent problems, not an archive (the audit
// log keeps successful registrations for good).
export const ATTEMPT_RETENTION_DAYS = 30;
export const ATTEMPT_MAX_ROWS = 100_000;

export async function pruneAttempts(now = new Date()): Promise<number> {
  const old = await db().registrationAttempt.deleteMany({
    where: { at: { lt: new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 86_400_000) } },
  });
  const overflow = await db().registrationAttempt.findFirst({
    orderBy: { id: "desc" },
    skip: ATTEMPT_MAX_ROWS,
    select: { id: true },
  });
  const trimmed = overflow ? await db().registrationAttempt.deleteMany({ where: { id: { lte: overflow.id } } }) : { count: 0 };
  return old.count + trimmed.count;
}
