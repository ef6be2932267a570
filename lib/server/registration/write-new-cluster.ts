import "server-only";
import type { Labels } from "@/lib/domain/labels";
import { ApiError } from "@/lib/server/api/errors";
import { auditInsert, type AuditRow } from "@/lib/server/audit/record-audit";
import { dialect } from "@/lib/server/db/client";
import { attemptInsert } from "./registration-attempts";
import { inDriverTransaction, insertInto, raw, Sql, type SqlTx } from "@/lib/server/db/sql";
import { withAfterCommit, type AfterCommit } from "@/lib/server/db/transaction";
import { newClusterLabelInserts } from "@/lib/server/clusters/cluster-labels";
import { changePhase, type PhaseChange } from "@/lib/server/lifecycle/change-phase";
import { firstCertificateInsert, type CertificateRow } from "@/lib/server/pki/issue-certificate";
import { consumeTokenUse } from "@/lib/server/tokens/consume-token-use";
import { tokenExhausted } from "@/lib/server/tokens/token-refusals";

/**
 * Everything a first registration writes, in the fewest statements: the token's use, then the
 * cluster, its labels, its certificate, the audit entry and the attempt, then the phase event.
 * Through Prisma's models each row would be a statement of its own (with a read-back and the
 * transaction's BEGIN and COMMIT), each paying the query compiler on the event loop that also
 * answers heartbeats, and a registration wave is many of them. So the statements are raw SQL in
 * one transaction: on PostgreSQL on the driver, the inserts in one statement (data-modifying
 * CTEs); on SQLite, which has no such CTEs, one insert per table on its in-process connection (no
 * network to a round trip).
 * The token's use comes first, so an exhausted token writes nothing.
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
  /** The Registration phase (from null), written by changePhase in the same transaction. */
  phase: PhaseChange;
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
        if (input.tokenUse !== "held" && !(input.tokenId && (await consumeTokenUse(tx, input.tokenId, input.now))))
          throw tokenExhausted();
        for (const statement of inserts(input, afterCommit)) await tx.run(statement);
        await changePhase(tx, afterCommit, input.phase);
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

/** The rows of a new cluster as inserts: one statement on PostgreSQL, one per table on SQLite. */
function inserts(input: NewCluster, afterCommit: AfterCommit): Sql[] {
  const { now, cluster, tokenId } = input;
  const clusterId = cluster.id;
  const statements = [
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
  ];
  if (dialect() !== "postgres") return statements;
  // Foreign keys are checked at the end of the statement, so the labels may name the cluster above them.
  const last = statements.pop()!;
  const ctes = statements.map((q, i) => Sql.join([raw(`w${i} AS (`), q, raw(")")], ""));
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
