import "server-only";
import type { Selector } from "@/lib/domain/selector";
import { clusterIdsInScope, versionCountsInScope } from "@/lib/server/clusters/cluster-list-sql";
import { compatibilityMatrixSchema, shippedMatrix, versionFlags, type CompatibilityMatrix } from "@/lib/domain/compatibility";
import { BUILD_AGENT_VERSION, BUILD_VERSION } from "@/lib/build-version";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { processSingleton } from "@/lib/server/process-singletons";
import type { FlaggedQuery } from "@/lib/contracts/settings";

const KEY = "compatibilityMatrix";
const SHIPPED_MATRIX = shippedMatrix({ version: BUILD_VERSION, agentVersion: BUILD_AGENT_VERSION });
const CACHE_MS = 2_000;
const g = processSingleton("compatibility-matrix", () => ({
  cached: null as { at: number; value: CompatibilityMatrix; edited: boolean } | null,
}));

/** The matrix in force: an admin's edited copy, else the one shipped with this build. */
export async function getMatrix(): Promise<{ matrix: CompatibilityMatrix; edited: boolean }> {
  const c = g.cached;
  if (c && Date.now() - c.at < CACHE_MS) return { matrix: c.value, edited: c.edited };
  const row = await db().setting.findUnique({ where: { key: KEY } });
  let matrix = SHIPPED_MATRIX;
  let edited = false;
  if (row) {
    const parsed = compatibilityMatrixSchema.safeParse(JSON.parse(row.value));
    if (parsed.success) {
      matrix = parsed.data;
      edited = true;
    }
  }
  g.cached = { at: Date.now(), value: matrix, edited };
  return { matrix, edited };
}

/** Replaces the matrix (or, with null, returns to the shipped one). Audited. */
export async function setMatrix(actor: Actor, matrix: CompatibilityMatrix | null) {
  await db().$transaction(async (tx) => {
    if (matrix)
      await tx.setting.upsert({
        where: { key: KEY },
        create: { key: KEY, value: JSON.stringify(matrix) },
        update: { value: JSON.stringify(matrix) },
      });
    else await tx.setting.deleteMany({ where: { key: KEY } });
    await recordAudit(
      tx,
      actor,
      matrix ? "compatibility.update" : "compatibility.reset",
      { type: "settings", id: KEY },
      matrix ? { matrix } : {},
    );
  });
  g.cached = null;
  return getMatrix();
}

/** Every cluster whose versions need attention, by name, with its flags. */
async function flaggedClusterList(matrix: CompatibilityMatrix) {
  const clusters = await db().cluster.findMany({
    where: { agentVersion: { not: null } },
    select: { id: true, name: true, agentVersion: true, kubernetesVersion: true, phase: true },
    orderBy: [{ name: "asc" }, { id: "asc" }],
  });
  return clusters
    .map((c) => ({ ...c, flags: versionFlags(matrix, c.agentVersion, c.kubernetesVersion) }))
    .filter((c) => c.flags.length);
}

/** Version distribution across the fleet and how many clusters carry each flag. */
export async function versionsOverview(scope: readonly Selector[] | null = null) {
  const { matrix, edited } = await getMatrix();
  const [agentVersions, kubernetesVersions, flagged] = await Promise.all([
    scope ? versionCountsInScope("agentVersion", scope) : versionCounts("agentVersion"),
    scope ? versionCountsInScope("kubernetesVersion", scope) : versionCounts("kubernetesVersion"),
    flaggedIn(matrix, scope),
  ]);
  const count = (flag: string) => flagged.filter((c) => c.flags.includes(flag as never)).length;
  return {
    matrix,
    edited,
    agentVersions,
    kubernetesVersions,
    flaggedCounts: {
      incompatible: count("incompatible"),
      outdated: count("outdated"),
      "unsupported-kubernetes": count("unsupported-kubernetes"),
    },
    flaggedTotal: flagged.length,
  };
}

async function versionCounts(column: "agentVersion" | "kubernetesVersion") {
  const rows = await db().cluster.groupBy({ by: [column], _count: { _all: true }, where: { [column]: { not: null } } });
  return rows.map((r) => ({ version: r[column]!, count: r._count._all }));
}

/** The flagged clusters, within the caller's teams' scopes when given. */
async function flaggedIn(matrix: CompatibilityMatrix, scope: readonly Selector[] | null) {
  const [flagged, inScope] = await Promise.all([flaggedClusterList(matrix), scope ? clusterIdsInScope(scope) : null]);
  return inScope ? flagged.filter((c) => inScope.has(c.id)) : flagged;
}

async function flaggedWith(flag: FlaggedQuery["flag"], scope: readonly Selector[] | null = null) {
  const { matrix } = await getMatrix();
  return (await flaggedIn(matrix, scope)).filter((c) => !flag || c.flags.includes(flag));
}

/** One page of the flagged clusters (all of them, or those with one flag), within the caller's scopes when given. */
export async function flaggedClusters(query: FlaggedQuery, scope: readonly Selector[] | null = null) {
  const all = await flaggedWith(query.flag, scope);
  const end = query.offset + query.limit;
  return { items: all.slice(query.offset, end), total: all.length, nextOffset: end < all.length ? end : null };
}

/** Ids of the flagged clusters ("upgrade these" on the Versions page prefills a rollout with them). */
export async function flaggedClusterIds(flag: FlaggedQuery["flag"]): Promise<string[]> {
  return (await flaggedWith(flag)).map((c) => c.id);
}
