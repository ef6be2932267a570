import "server-only";
import type { ClusterFilterInput, ClusterList, ClusterListItem, ListClustersQuery } from "@/lib/contracts/clusters";
import { offsetFromCursorText } from "@/lib/domain/paging";
import { parseSelector, SelectorError, type Selector } from "@/lib/domain/selector";
import { clusterReasons } from "@/lib/domain/cluster-reason";
import { blockingItems, CHECKLIST_KEYS, type ChecklistKey } from "@/lib/domain/enrollment";
import { SNOOZE_SELECT, snoozeView } from "@/lib/domain/cluster-snooze";
import { parseStored } from "@/lib/server/lifecycle/enrollment";
import { clusterStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { requestedGroupSelector } from "@/lib/server/groups/group-selector";
import type { Settings } from "@/lib/domain/settings";
import { clusterPage, sameClusterPeers, statusChangesLastHour, type ClusterFilter } from "./cluster-list-sql";

export function parseSelectorParam(text: string, what = "selector"): Selector {
  try {
    return parseSelector(text);
  } catch (err) {
    if (err instanceof SelectorError)
      throw new ApiError("invalid_request", `The ${what} is invalid: ${err.message}.`, [
        { ...err.limit, field: what, message: err.message },
      ]);
    throw err;
  }
}

/** The selector of a group named by id or name (a 400 when its stored selector is invalid). */
export async function groupSelector(group: string): Promise<Selector> {
  const g = await db().clusterGroup.findFirst({
    where: { OR: [{ id: group }, { name: group }] },
    select: { id: true, name: true, selector: true },
  });
  if (!g) throw new ApiError("not_found", `No cluster group ${group}.`);
  return requestedGroupSelector(g);
}

/** The clusters a request names by a selector, a group, or both (both must match). */
export async function selectionSelector(q: { selector?: string; group?: string }): Promise<Selector> {
  return [...(q.selector ? parseSelectorParam(q.selector) : []), ...(q.group ? await groupSelector(q.group) : [])];
}

/** A filter as the list, the export and bulk actions take it, resolved for the SQL (group -> its selector). */
export async function resolveClusterFilter(q: ClusterFilterInput): Promise<ClusterFilter> {
  return {
    selector: await selectionSelector(q),
    status: q.status,
    health: q.health,
    enrollment: q.enrollment,
    blockedOn: q.blockedOn,
    text: q.q,
    duplicateUid: q.duplicateUid === undefined ? undefined : q.duplicateUid === "true",
    kubelet: q.kubelet,
    instanceType: q.instanceType,
    snoozed: q.snoozed === undefined ? undefined : q.snoozed === "true",
    agentVersion: q.agentVersion,
    kubernetesVersion: q.kubernetesVersion,
  };
}

/** Nodes across a cluster's pools, or null when it reports none. */
export function totalNodes(pools: readonly { nodeCount: number | null }[]): number | null {
  return pools.length ? pools.reduce((n, p) => n + (p.nodeCount ?? 0), 0) : null;
}

/** The list item of a cluster row (the list page and the export read the same columns). */
export const LIST_ITEM_SELECT = {
  id: true,
  name: true,
  phase: true,
  lastHeartbeatAt: true,
  apiServerHealth: true,
  agentVersion: true,
  kubernetesVersion: true,
  registeredAt: true,
  enrolledAt: true,
  enrollment: true,
  owner: true,
  notes: true,
  ...SNOOZE_SELECT,
  labels: { select: { key: true, value: true } },
  nodePools: { select: { nodeCount: true } },
} as const;

/**
 * The checklist items a cluster that is not enrolled is held back by, as the enrollment
 * evaluator last stored them: empty once enrolled, null before its first evaluation.
 */
export function enrollmentBlockedOn(stored: string | null, enrolledAt: Date | null): ChecklistKey[] | null {
  if (enrolledAt) return [];
  if (!stored) return null;
  const items = parseStored(stored);
  return blockingItems(CHECKLIST_KEYS.filter((k) => items[k] && items[k].state !== "pass"));
}

/**
 * The rows of these clusters as list items, in the order of `ids` (a cluster deleted meanwhile is
 * left out). `scope`: the caller's teams' selectors; a peer reporting the same UID outside them is
 * not named.
 */
export async function listItems(
  ids: readonly string[],
  now: Date,
  settings: Settings,
  scope: readonly Selector[] | null = null,
): Promise<ClusterListItem[]> {
  const { notReadyThresholdSeconds } = settings;
  const [rows, changes, sameCluster] = await Promise.all([
    db().cluster.findMany({ where: { id: { in: [...ids] } }, select: LIST_ITEM_SELECT }),
    statusChangesLastHour(ids, now),
    sameClusterPeers(ids, scope),
  ]);
  const byId = new Map(rows.map((c) => [c.id, c]));
  return ids.flatMap((id) => {
    const c = byId.get(id);
    if (!c) return [];
    const labels = Object.fromEntries(c.labels.map((l) => [l.key, l.value]));
    const status = clusterStatus(c, now, notReadyThresholdSeconds);
    return {
      id: c.id,
      name: c.name,
      status,
      phase: c.phase,
      labels,
      lastHeartbeatAt: c.lastHeartbeatAt?.toISOString() ?? null,
      agentVersion: c.agentVersion,
      kubernetesVersion: c.kubernetesVersion,
      registeredAt: c.registeredAt?.toISOString() ?? null,
      reasons: clusterReasons(
        { ...c, labels, statusChangesLastHour: changes.get(c.id) ?? 0, sameClusterAs: sameCluster.get(c.id) },
        settings,
        now,
      ),
      nodeCount: totalNodes(c.nodePools),
      notReadySince: status === "NotReady" ? c.statusChangedAt.toISOString() : null,
      enrolledAt: c.enrolledAt?.toISOString() ?? null,
      enrollmentBlockedOn: enrollmentBlockedOn(c.enrollment, c.enrolledAt),
      owner: c.owner,
      notes: c.notes,
      snooze: snoozeView(c, now),
    };
  });
}

function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  const offset = offsetFromCursorText(Buffer.from(cursor, "base64url").toString("utf8"));
  if (offset === null)
    throw new ApiError("invalid_request", "The cursor is invalid: it is not a cursor from a previous page.", [
      { field: "cursor", message: "not a cursor from a previous page" },
    ]);
  return offset;
}

/** A page of the list; `scope`: the caller's teams' selectors (lib/server/auth/authorize.ts), null for the whole fleet. */
export async function listClusters(q: ListClustersQuery, scope: readonly Selector[] | null = null): Promise<ClusterList> {
  const now = new Date();
  const settings = await getSettings();
  const { notReadyThresholdSeconds } = settings;
  const filter = { ...(await resolveClusterFilter(q)), ...(scope ? { scope } : {}) };
  const offset = decodeCursor(q.cursor);
  const page = await clusterPage(
    filter,
    { sort: q.sort, order: q.order, offset, limit: q.limit },
    now,
    notReadyThresholdSeconds,
    settings.flappingThresholdPerHour,
  );
  const items = await listItems(page.ids, now, settings, scope ?? null);
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
