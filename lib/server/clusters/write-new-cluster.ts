import "server-only";
import type { Labels } from "@/lib/domain/labels";
import { ApiError } from "@/lib/server/api/errors";
import type { auditRow } from "@/lib/server/audit/record-audit";
import { db, dialect } from "@/lib/server/db/client";
import { withAfterCommit } from "@/lib/server/db/transaction";
import { afterPhaseChange, phaseEventRow, type PhaseChange } from "@/lib/server/lifecycle/change-phase";

/**
 * Everything a first registration writes, in the fewest round trips (issue 12 B4): the token's
 * use, the cluster, its labels, its certificate, the phase event, the audit entry and the attempt.
 * Through Prisma's models that was eleven statements (BEGIN, a read-back, COMMIT included), each
 * paying the query compiler. Here it is raw SQL on the driver: on PostgreSQL one statement (data-
 * modifying CTEs, atomic by itself: every insert reads the token update's RETURNING, so an
 * exhausted token writes nothing); on SQLite, which has no such CTEs, one transaction of seven
 * plain statements on the in-process driver (round trips there cost no network, only Prisma).
 * Every value is a bound parameter; only fixed identifiers are written into the text.
 */
export type NewCluster = {
  tokenId: string;
  now: Date;
  cluster: {
    id: string;
    name: string;
    caFingerprint: string;
    apiServerUrl: string;
    agentVersion: string;
    kubernetesVersion: string | null;
  };
  labels: Labels;
  certificate: {
    serial: string;
    fingerprint: string;
    pem: string;
    notBefore: Date;
    notAfter: Date;
    issuerFingerprint: string;
  };
  /** The Registration phase event (from null): its row here, its after-commit effects as changePhase's. */
  phase: PhaseChange;
  audit: ReturnType<typeof auditRow>;
  attempt: { sourceAddress: string | null };
};

type Row = Record<string, unknown>;

/** Throws ApiError token_exhausted (no use left, nothing written) or cluster_conflict (the name was taken meanwhile). */
export async function writeNewCluster(input: NewCluster): Promise<void> {
  try {
    await withAfterCommit(async (afterCommit) => {
      const written = dialect() === "postgres" ? await writePostgres(input) : await writeSqlite(input);
      if (!written)
        throw new ApiError("token_exhausted", "The registration token has no uses left; ask an operator for a new one.");
      afterPhaseChange(afterCommit, input.phase);
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError(
        "cluster_conflict",
        `The cluster ${input.cluster.name} was registered by another request meanwhile; try again.`,
      );
    }
    throw err;
  }
}

function rows(input: NewCluster): { table: string; rows: Row[] }[] {
  const { now, cluster, tokenId } = input;
  const clusterId = cluster.id;
  return [
    {
      table: "Cluster",
      rows: [
        {
          ...cluster,
          registrationTokenId: tokenId,
          registeredAt: now,
          phase: "Registration",
          phaseChangedAt: now,
          status: "Pending",
          statusChangedAt: now,
          createdAt: now,
          updatedAt: now,
        },
      ],
    },
    { table: "ClusterLabel", rows: Object.entries(input.labels).map(([key, value]) => ({ clusterId, key, value })) },
    { table: "Certificate", rows: [{ ...input.certificate, clusterId, createdAt: now }] },
    { table: "ClusterEvent", rows: [phaseEventRow(input.phase)] },
    { table: "AuditLog", rows: [{ ...input.audit, at: now }] },
    {
      table: "RegistrationAttempt",
      rows: [
        { at: now, result: "ok", sourceAddress: input.attempt.sourceAddress, tokenId, clusterName: cluster.name, clusterId },
      ],
    },
  ].filter((t) => t.rows.length > 0);
}

const quote = (identifier: string) => `"${identifier}"`;

/** Parameters in order, and their placeholders in each dialect's spelling (PostgreSQL casts timestamps: text would not do). */
class Params {
  readonly values: unknown[] = [];
  constructor(private readonly postgres: boolean) {}
  add(value: unknown): string {
    this.values.push(value);
    if (!this.postgres) return "?";
    return value instanceof Date ? `$${this.values.length}::timestamp(3)` : `$${this.values.length}`;
  }
}

const tokenUpdate = (p: Params, input: NewCluster) =>
  `UPDATE "RegistrationToken" SET "usedClusters" = "usedClusters" + 1
   WHERE "id" = ${p.add(input.tokenId)} AND "revokedAt" IS NULL AND "expiresAt" > ${p.add(input.now)} AND "usedClusters" < "maxClusters"`;

/** One statement: the token update's RETURNING feeds every insert, so all happen or none. */
async function writePostgres(input: NewCluster): Promise<boolean> {
  const p = new Params(true);
  const ctes = [`t AS (${tokenUpdate(p, input)} RETURNING "id")`];
  rows(input).forEach(({ table, rows }, i) => {
    const columns = Object.keys(rows[0]!);
    const values = rows.map((r) => `(${columns.map((c) => p.add(r[c] ?? null)).join(", ")})`).join(", ");
    ctes.push(
      `w${i} AS (INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) SELECT v.* FROM t, (VALUES ${values}) AS v(${columns.map(quote).join(", ")}))`,
    );
  });
  const result = await db().$queryRawUnsafe<{ used: number }[]>(
    `WITH ${ctes.join(",\n")} SELECT count(*)::int AS used FROM t`,
    ...p.values,
  );
  return result[0]?.used === 1;
}

/** One transaction: the token update first, the inserts only when it took a use. */
async function writeSqlite(input: NewCluster): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const p = new Params(false);
    const used = await tx.$executeRawUnsafe(tokenUpdate(p, input), ...p.values);
    if (used !== 1) return false;
    for (const { table, rows: tableRows } of rows(input)) {
      const columns = Object.keys(tableRows[0]!);
      const q = new Params(false);
      const values = tableRows.map((r) => `(${columns.map((c) => q.add(r[c] ?? null)).join(", ")})`).join(", ");
      await tx.$executeRawUnsafe(`INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES ${values}`, ...q.values);
    }
    return true;
  });
}

/** A unique index refused a row: through Prisma's models P2002, through raw SQL P2010 with the driver's code. */
function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { kind?: unknown } } } };
  if (e?.code === "P2002") return true;
  if (e?.code !== "P2010") return false;
  return (
    e.meta?.code === "23505" ||
    e.meta?.code === "2067" ||
    e.meta?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    e.meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation"
  );
}
