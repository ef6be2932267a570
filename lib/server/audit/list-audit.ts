import "server-only";
import { z } from "zod";
import { idCursorSchema } from "@/lib/domain/paging";
import { db } from "@/lib/server/db/client";

export const auditQuerySchema = z.object({
  actor: z.string().trim().max(200).optional(),
  action: z.string().trim().max(100).optional(),
  target: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** id of the last entry of the previous page */
  cursor: idCursorSchema.optional(),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export type AuditEntry = {
  id: number;
  at: string;
  actorType: string;
  actor: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
};

/** Newest first, keyset-paginated by id; filters are prefix matches. */
export async function listAudit(q: AuditQuery): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const rows = await db().auditLog.findMany({
    where: {
      ...(q.actor ? { actorLabel: { startsWith: q.actor } } : {}),
      ...(q.action ? { action: { startsWith: q.action } } : {}),
      ...(q.target ? { targetId: { startsWith: q.target } } : {}),
      ...(q.cursor ? { id: { lt: q.cursor } } : {}),
    },
    orderBy: { id: "desc" },
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  return {
    items: page.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      actorType: r.actorType,
      actor: r.actorLabel,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId,
      details: safeJson(r.details),
    })),
    nextCursor: rows.length > q.limit ? String(page[page.length - 1]!.id) : null,
  };
}

function safeJson(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}
