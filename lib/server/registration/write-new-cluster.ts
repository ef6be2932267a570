import "server-only";
import type { Labels } from "@/lib/domain/labels";
import { ApiError } from "@/lib/server/api/errors";
import { auditInsert, type AuditRow } from "@/lib/server/audit/record-audit";
import { dialect } from "@/lib/server/db/client";
import { attemptInsert } from "./registration-attempts";
import { inDriverTransaction, insertInto, raw, Sql, type SqlTx } from "@/lib/server/db/sql";
import { withAfterCommit, type AfterCommit } from "@/lib/server/db/transaction";
import { newClusterLabelInserts } from "@/lib/server/clusters/cluster-labels";
import { newClusterPhase, type PhaseChange } from "@/lib/server/lifecycle/change-phase";
import { firstCertificateInsert, type CertificateRow } from "@/lib/server/pki/issue-certificate";
import { takeTokenUse } from "@/lib/server/tokens/consume-token-use";
import { tokenExhausted } from "@/lib/server/tokens/token-refusals";

/**
 * Everything a first registration writes, in the fewest statements: the cluster, its labels, its
 * certificate, the audit entry, the attempt and the phase event, then the token's use. Through
 * Prisma's models each row would be a statement of its own (with a read-back and the
 * transaction's BEGIN and COMMIT), each paying the query compiler on the event loop that also
 * answers heartbeats, and a registration wave is many of them. So the statements are raw SQL in
 * one transaction: on PostgreSQL on the driver, all of them one statement (data-modifying CTEs);
 * on SQLite, which has no such CTEs, one per table on its in-process connection (no network to a
 * round trip).
 * The token's use comes last: taking it locks the token's row until commit, and every other
 * registration with that token waits for the lock (on PostgreSQL a wave of them did, behind a
 * transaction waiting on its busy event loop for its next statement). An exhausted token rolls
 * the rest back, so it writes nothing.
 */
export type NewCluster = {
  /** Null only for a held use whose token is gone since (an approval after the token was deleted). */
  tokenId: string | null;
  now: Date;
  cluster: {
    id: string;
    name: string;
    caFingerprint: string;
    apiServerUrl: string;
    agentVersion: string;
    kubernetesVersion: string | null;
    /** The kube-system namespace's UID the agent reported (docs/protocol.md), or null. */
    clusterUid: string | null;
  };
  labels: Labels;
  /** Issued for this cluster (lib/server/pki/issue-certificate.ts); cached once committed. */
  certificate: CertificateRow;
  /** The Registration phase, from null: the cluster is created in it (see newClusterPhase). */
  phase: PhaseChange & { from: null };
  audit: AuditRow | AuditRow[];
  /** The attempt-log row ("ok"); null when no agent is on the line (an operator's approval). */
  attempt: { sourceAddress: string | null } | null;
  /**
   * "held": the use was taken earlier and is still held (an approved registration request took it
   * when it was recorded), so none is consumed here. Default "consume".
   */
  tokenUse?: "consume" | "held";
  /** Runs first in the transaction (an approval's conditional state change); throwing writes nothing. */
  before?: (tx: SqlTx) => Promise<void>;
};

/** Throws ApiError token_exhausted (no use left, nothing written) or cluster_conflict (the name was taken meanwhile). */
export async function writeNewCluster(input: NewCluster): Promise<void> {
  try {
    await withAfterCommit((afterCommit) =>
      inDriverTransaction(async (tx) => {
        await input.before?.(tx);
        const takesUse = input.tokenUse !== "held";
        if (takesUse && !input.tokenId) throw tokenExhausted();
        const statements = inOneOnPostgres([
          ...inserts(input, afterCommit),
          ...(takesUse ? [takeTokenUse(input.tokenId!, input.now)] : []),
        ]);
        let changed = 0;
        for (const statement of statements) changed = await tx.run(statement);
        // The last statement's count is the token's: one row when a use was taken.
        if (takesUse && changed !== 1) throw tokenExhausted();
      }),
    );
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

/** The rows of a new cluster as inserts, one per table. */
function inserts(input: NewCluster, afterCommit: AfterCommit): Sql[] {
  const { now, cluster, tokenId } = input;
  const clusterId = cluster.id;
  return [
    insertInto("Cluster", [
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
    ]),
    ...newClusterLabelInserts(afterCommit, clusterId, input.labels),
    firstCertificateInsert(afterCommit, input.certificate, now),
    auditInsert([input.audit].flat(), now),
    ...(input.attempt
      ? [
          attemptInsert(
            { result: "ok", sourceAddress: input.attempt.sourceAddress, tokenId, clusterName: cluster.name, clusterId },
            now,
          ),
        ]
      : []),
    newClusterPhase(afterCommit, input.phase),
  ];
}

/**
 * On PostgreSQL, statements as one: all but the last as data-modifying CTEs, the last the main
 * statement (its row count is the statement's). Foreign keys are checked at the end of the
 * statement, so the labels may name the cluster inserted beside them. SQLite: unchanged.
 */
function inOneOnPostgres(statements: Sql[]): Sql[] {
  if (dialect() !== "postgres" || statements.length < 2) return statements;
  const last = statements.at(-1)!;
  const ctes = statements.slice(0, -1).map((q, i) => Sql.join([raw(`w${i} AS (`), q, raw(")")], ""));
  return [Sql.join([raw("WITH "), Sql.join(ctes, ", "), raw(" "), last], "")];
}

/**
 * A unique index refused a row: through Prisma's models P2002, through raw SQL P2010 with the
 * driver's code, on PostgreSQL's driver itself its SQLSTATE.
 */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { kind?: unknown } } } };
  if (e?.code === "P2002" || e?.code === "23505") return true;
  if (e?.code !== "P2010") return false;
  return (
    e.meta?.code === "23505" ||
    e.meta?.code === "2067" ||
    e.meta?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    e.meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation"
  );
}
