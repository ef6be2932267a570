import "server-only";
import { db } from "@/lib/server/db/client";

// Audit rows store a target's type and id; people look for names. Names are read from the
// target's own table at read time (a renamed cluster shows its name now), from a removed
// cluster's tombstone, or from the name the entry recorded in its details.

/** How each target type's current name is read, by ids, and which ids have a name starting so. */
type NameSource = {
  byIds: (ids: string[]) => Promise<{ id: string; name: string }[]>;
  idsNamed: (prefix: string, take: number) => Promise<{ id: string }[]>;
};

// The tables whose rows are named by one text column: the delegates differ only in their types.
type NamedTable = {
  findMany(args: { where: object; select: Record<string, true>; take?: number }): Promise<Record<string, string>[]>;
};
function nameColumn(
  model: "clusterGroup" | "policy" | "rollout" | "registrationToken" | "apiKey" | "user",
  column = "name",
): NameSource {
  const table = () => db()[model] as unknown as NamedTable;
  return {
    byIds: async (ids) =>
      (await table().findMany({ where: { id: { in: ids } }, select: { id: true, [column]: true } })).map((r) => ({
        id: r.id!,
        name: r[column]!,
      })),
    idsNamed: async (prefix, take) =>
      (await table().findMany({ where: { [column]: { startsWith: prefix } }, select: { id: true }, take })).map((r) => ({
        id: r.id!,
      })),
  };
}

const SOURCES: Record<string, NameSource> = {
  cluster: {
    byIds: async (ids) => {
      const [live, gone] = await Promise.all([
        db().cluster.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }),
        db().clusterTombstone.findMany({ where: { clusterId: { in: ids } }, select: { clusterId: true, name: true } }),
      ]);
      return [...gone.map((t) => ({ id: t.clusterId, name: t.name })), ...live];
    },
    idsNamed: async (prefix, take) => {
      const [live, gone] = await Promise.all([
        db().cluster.findMany({ where: { name: { startsWith: prefix } }, select: { id: true }, take }),
        db().clusterTombstone.findMany({ where: { name: { startsWith: prefix } }, select: { clusterId: true }, take }),
      ]);
      return [...live, ...gone.map((t) => ({ id: t.clusterId }))];
    },
  },
  group: nameColumn("clusterGroup"),
  policy: nameColumn("policy"),
  rollout: nameColumn("rollout"),
  registrationToken: nameColumn("registrationToken"),
  apiKey: nameColumn("apiKey"),
  user: nameColumn("user", "email"),
};

// A name filter matching thousands of targets is a mistyped filter: past this many ids per type
// the id prefix still matches, and the list stays a bounded query.
const MAX_NAMED_IDS = 500;

/** Ids of targets, of any type, whose name starts with `prefix`. */
export async function targetIdsNamed(prefix: string): Promise<string[]> {
  const lists = await Promise.all(Object.values(SOURCES).map((s) => s.idsNamed(prefix, MAX_NAMED_IDS)));
  return [...new Set(lists.flat().map((r) => r.id))];
}

type Targeted = { targetType: string | null; targetId: string | null; details: Record<string, unknown> };

/** Each row's target name (null when unknown), in the rows' order: one query per target type. */
export async function targetNames(rows: readonly Targeted[]): Promise<(string | null)[]> {
  const idsByType = new Map<string, Set<string>>();
  for (const r of rows) {
    if (r.targetType && r.targetId && SOURCES[r.targetType]) {
      const ids = idsByType.get(r.targetType) ?? new Set<string>();
      ids.add(r.targetId);
      idsByType.set(r.targetType, ids);
    }
  }
  const named = new Map<string, string>();
  await Promise.all(
    [...idsByType].map(async ([type, ids]) => {
      for (const { id, name } of await SOURCES[type]!.byIds([...ids])) named.set(`${type}/${id}`, name);
    }),
  );
  return rows.map((r) => {
    const current = r.targetType && r.targetId ? named.get(`${r.targetType}/${r.targetId}`) : undefined;
    if (current) return current;
    // Gone since (a deleted group, a removed key): the name the entry recorded, if it did.
    const recorded = r.details.name ?? r.details.email;
    return typeof recorded === "string" ? recorded : null;
  });
}
