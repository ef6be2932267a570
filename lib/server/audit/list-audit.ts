import "server-only";
import type { AuditEntry, AuditQuery } from "@/lib/contracts/audit";
import { db } from "@/lib/server/db/client";

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
