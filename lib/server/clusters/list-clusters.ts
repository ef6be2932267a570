import "server-only";
import { z } from "zod";
import { parseSelector, SelectorError, type Selector } from "@/lib/domain/selector";
import { clusterStatus, type ClusterStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { selectorWhere, type ClusterWhere } from "./cluster-filters";
import { clusterPage } from "./cluster-sql";

const STATUSES = ["Pending", "Ready", "NotReady", "Draining", "Deregistering", "Provisioning"] as const;
const SORTS = ["name", "lastHeartbeatAt", "registeredAt", "status"] as const;

export const listClustersQuerySchema = z.object({
  status: z.enum(STATUSES).optional(),
  selector: z.string().max(2000).optional(),
  group: z.string().max(200).optional(),
  q: z.string().trim().max(200).optional(),
  sort: z.enum(SORTS).default("name"),
  order: z.enum(["asc", "desc"]).default("asc"),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(200).optional(),
});
export type ListClustersQuery = z.infer<typeof listClustersQuerySchema>;

export type ClusterListItem = {
  id: string;
  name: string;
  status: ClusterStatus;
  phase: string;
  labels: Record<string, string>;
  lastHeartbeatAt: string | null;
  agentVersion: string | null;
  kubernetesVersion: string | null;
  registeredAt: string | null;
};

export function parseSelectorParam(text: string, what = "selector"): Selector {
  try {
    return parseSelector(text);
  } catch (err) {
    if (err instanceof SelectorError)
      throw new ApiError("invalid_request", `The ${what} is invalid: ${err.message}.`, [{ field: what, message: err.message }]);
    throw err;
  }
}

/** The selector of a group named by id or name. */
export async function groupSelector(group: string): Promise<Selector> {
  const g = await db().clusterGroup.findFirst({ where: { OR: [{ id: group }, { name: group }] }, select: { selector: true } });
  if (!g) throw new ApiError("not_found", `No cluster group ${group}.`);
  return parseSelectorParam(g.selector, "group selector");
}

/**
 * Prisma filter for the clusters a selector or a group names (the gate and rollouts read every
 * match; the list uses cluster-sql.ts).
 */
export async function selectionWhere(q: { selector?: string; group?: string }): Promise<ClusterWhere> {
  const and: ClusterWhere[] = [];
  if (q.selector) and.push(...selectorWhere(parseSelectorParam(q.selector)));
  if (q.group) and.push(...selectorWhere(await groupSelector(q.group)));
  return and.length ? { AND: and } : {};
}

function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  const n = Number(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!Number.isInteger(n) || n < 0)
    throw new ApiError("invalid_request", "The cursor is invalid.", [
      { field: "cursor", message: "not a cursor from a previous page" },
    ]);
  return n;
}

export async function listClusters(q: ListClustersQuery) {
  const now = new Date();
  const { notReadyThresholdSeconds } = await getSettings();
  const selector = [...(q.selector ? parseSelectorParam(q.selector) : []), ...(q.group ? await groupSelector(q.group) : [])];
  const offset = decodeCursor(q.cursor);
  const page = await clusterPage(
    { selector, status: q.status, text: q.q },
    { sort: q.sort, order: q.order, offset, limit: q.limit },
    now,
    notReadyThresholdSeconds,
  );
  const rows = await db().cluster.findMany({
    where: { id: { in: page.ids } },
    select: {
      id: true,
      name: true,
      phase: true,
      lastHeartbeatAt: true,
      apiServerHealth: true,
      agentVersion: true,
      kubernetesVersion: true,
      registeredAt: true,
      labels: { select: { key: true, value: true } },
    },
  });
  const byId = new Map(rows.map((c) => [c.id, c]));
  // A cluster deleted between the two queries is simply left out of the page.
  const items: ClusterListItem[] = page.ids.flatMap((id) => {
    const c = byId.get(id);
    if (!c) return [];
    return {
      id: c.id,
      name: c.name,
      status: clusterStatus(c, now, notReadyThresholdSeconds),
      phase: c.phase,
      labels: Object.fromEntries(c.labels.map((l) => [l.key, l.value])),
      lastHeartbeatAt: c.lastHeartbeatAt?.toISOString() ?? null,
      agentVersion: c.agentVersion,
      kubernetesVersion: c.kubernetesVersion,
      registeredAt: c.registeredAt?.toISOString() ?? null,
    };
  });
  return {
    items,
    nextCursor: page.hasMore ? Buffer.from(String(offset + q.limit)).toString("base64url") : null,
    /** exact with no filter or a selector alone; otherwise exact up to 1,000, past that `totalCapped` and the cap */
    total: page.total,
    totalCapped: page.totalCapped,
    notReadyThresholdSeconds,
    now: now.toISOString(),
  };
}
