import "server-only";
import type { z } from "zod";
import type { attemptsQuerySchema } from "@/lib/contracts/tokens";
import { storableText } from "@/lib/domain/storable-text";
import { db } from "@/lib/server/db/client";

export type AttemptRecord = {
  result: string;
  sourceAddress: string | null;
  tokenId?: string | null;
  clusterName?: string | null;
  clusterId?: string | null;
  message?: string | null;
};

const text = (value: string | null | undefined, max: number) => (value == null ? null : storableText(value, max));

/** Records a refused registration as it was sent: odd characters escaped, never lost to the insert. */
export async function recordAttempt(a: AttemptRecord): Promise<void> {
  await db().registrationAttempt.create({
    data: {
      result: a.result,
      sourceAddress: text(a.sourceAddress, 64),
      tokenId: text(a.tokenId, 64),
      clusterName: text(a.clusterName, 63),
      clusterId: text(a.clusterId, 64),
      message: text(a.message, 300),
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
