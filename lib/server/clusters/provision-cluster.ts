import "server-only";
import type { z } from "zod";
import type { provisionClusterSchema } from "@/lib/contracts/clusters";
import type { Labels } from "@/lib/domain/labels";
import { randomId } from "@/lib/server/auth/secrets";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { MintedToken } from "@/lib/contracts/tokens";
import type { Tx } from "@/lib/server/db/client";
import { inTransaction, type AfterCommit } from "@/lib/server/db/transaction";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { mintTokenIn } from "@/lib/server/tokens/mint-token";

/**
 * Pre-creates a cluster record in phase Provisioning, and in the same transaction a registration
 * token bound to it: only an agent presenting that token (or another bound one) claims the
 * record; it keeps this id and gets its identity then. The token is in this return value only.
 */
export async function provisionCluster(
  actor: Actor,
  input: z.output<typeof provisionClusterSchema>,
): Promise<{ id: string; registrationToken: MintedToken }> {
  return inTransaction(async (tx, afterCommit) => {
    const id = await precreateClusterIn(tx, afterCommit, actor, {
      name: input.name,
      description: input.description ?? null,
      labels: input.labels,
      reason: `pre-created by ${actor.label}`,
    });
    const registrationToken = await mintTokenIn(tx, actor, {
      name: `claim ${input.name}`,
      description: `Claims the pre-created cluster ${input.name}.`,
      ttlSeconds: input.tokenTtlSeconds,
      maxClusters: 1,
      clusterId: id,
    });
    return { id, registrationToken };
  });
}

/**
 * The pre-created record in the caller's transaction (an admin's, or Cluster API's import): phase
 * Provisioning, its phase event and the audit row. 409 when the name is taken. Returns its id.
 */
export async function precreateClusterIn(
  tx: Tx,
  afterCommit: AfterCommit,
  actor: Actor,
  input: { name: string; description: string | null; labels: Labels; reason: string; audit?: Record<string, unknown> },
): Promise<string> {
  const id = `cl_${randomId(16)}`;
  const now = new Date();
  if (await tx.cluster.findUnique({ where: { name: input.name } }))
    throw new ApiError("conflict", `A cluster named ${input.name} already exists.`);
  await tx.cluster.create({
    data: {
      id,
      name: input.name,
      description: input.description,
      phase: "Provisioning",
      phaseChangedAt: now,
      labels: { createMany: { data: Object.entries(input.labels).map(([key, value]) => ({ key, value })) } },
    },
  });
  await changePhase(tx, afterCommit, {
    clusterId: id,
    clusterName: input.name,
    from: null,
    to: "Provisioning",
    reason: input.reason,
    at: now,
    publish: { type: "cluster.registered", clusterId: id, name: input.name, reregistered: false, at: now.toISOString() },
  });
  await recordAudit(
    tx,
    actor,
    "cluster.provision",
    { type: "cluster", id },
    { name: input.name, labels: input.labels, ...input.audit },
  );
  return id;
}
