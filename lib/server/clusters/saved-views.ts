import "server-only";
import type { SavedView, SavedViewInput } from "@/lib/contracts/clusters";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";

// Saved views of the cluster list: named query strings shared by everyone in the fleet. The
// query is kept as the list's URL has it, so opening a view is following a link.

type Row = { id: string; name: string; query: string; createdBy: string; createdAt: Date };
const view = (r: Row): SavedView => ({ ...r, createdAt: r.createdAt.toISOString() });

/** Only the list's own parameters are kept (a cursor or a stray parameter is dropped). */
const VIEW_PARAMS = ["status", "selector", "group", "q", "sort", "order", "pageSize"];

export function normalizeViewQuery(query: string): string {
  const params = new URLSearchParams(query.replace(/^\?/, ""));
  const kept = new URLSearchParams();
  for (const [k, v] of params) if (VIEW_PARAMS.includes(k) && v.trim()) kept.set(k, v);
  return kept.toString();
}

export async function listSavedViews(): Promise<{ items: SavedView[] }> {
  const rows = await db().savedView.findMany({ orderBy: { name: "asc" } });
  return { items: rows.map(view) };
}

export async function createSavedView(actor: Actor, input: SavedViewInput): Promise<SavedView> {
  const query = normalizeViewQuery(input.query);
  return inTransaction(async (tx) => {
    if (await tx.savedView.findUnique({ where: { name: input.name }, select: { id: true } }))
      throw new ApiError("conflict", `A view named "${input.name}" already exists.`);
    const row = await tx.savedView.create({ data: { name: input.name, query, createdBy: actor.label } });
    await recordAudit(tx, actor, "view.create", { type: "view", id: row.id }, { name: row.name, query });
    return view(row);
  });
}

export async function deleteSavedView(actor: Actor, id: string): Promise<void> {
  await inTransaction(async (tx) => {
    const row = await tx.savedView.findUnique({ where: { id } });
    if (!row) throw new ApiError("not_found", "No saved view with this id.");
    await tx.savedView.delete({ where: { id } });
    await recordAudit(tx, actor, "view.delete", { type: "view", id }, { name: row.name, query: row.query });
  });
}
