import "server-only";
import { compatibilityMatrixSchema, SHIPPED_MATRIX, versionFlags, type CompatibilityMatrix } from "@/lib/domain/compatibility";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { processSingleton } from "@/lib/server/process-singletons";

const KEY = "compatibilityMatrix";
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

/** Version distribution across the fleet and the clusters whose versions need attention. */
export async function versionsOverview() {
  const { matrix, edited } = await getMatrix();
  const [agents, kubes, clusters] = await Promise.all([
    db().cluster.groupBy({ by: ["agentVersion"], _count: { _all: true }, where: { agentVersion: { not: null } } }),
    db().cluster.groupBy({ by: ["kubernetesVersion"], _count: { _all: true }, where: { kubernetesVersion: { not: null } } }),
    db().cluster.findMany({
      where: { agentVersion: { not: null } },
      select: { id: true, name: true, agentVersion: true, kubernetesVersion: true, phase: true },
    }),
  ]);
  const flagged = clusters
    .map((c) => ({ ...c, flags: versionFlags(matrix, c.agentVersion, c.kubernetesVersion) }))
    .filter((c) => c.flags.length);
  const count = (flag: string) => flagged.filter((c) => c.flags.includes(flag as never)).length;
  return {
    matrix,
    edited,
    agentVersions: agents.map((a) => ({ version: a.agentVersion!, count: a._count._all })),
    kubernetesVersions: kubes.map((k) => ({ version: k.kubernetesVersion!, count: k._count._all })),
    flaggedCounts: {
      incompatible: count("incompatible"),
      outdated: count("outdated"),
      "unsupported-kubernetes": count("unsupported-kubernetes"),
    },
    flagged: flagged.slice(0, 200),
  };
}
