import "server-only";
import type { z } from "zod";
import type { provisionClusterSchema } from "@/lib/contracts/clusters";
import { randomId } from "@/lib/server/auth/secrets";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { MintedToken } from "@/lib/contracts/tokens";
import { inTransaction } from "@/lib/server/db/transaction";
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
  const id = `cl_${randomId(16)}`;
  const now = new Date();
  const registrationToken = await inTransaction(async (tx, afterCommit) => {
    if (await tx.cluster.findUnique({ where: { name: input.name } }))
      throw new ApiError("conflict", `A cluster named ${input.name} already exists.`);
    await tx.cluster.create({
      data: {
        id,
        name: input.name,
        description: input.description ?? null,
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
      reason: `pre-created by ${actor.label}`,
      at: now,
      publish: { type: "cluster.registered", clusterId: id, name: input.name, reregistered: false, at: now.toISOString() },
    });
    await recordAudit(tx, actor, "cluster.provision", { type: "cluster", id }, { name: input.name, labels: input.labels });
    return mintTokenIn(tx, actor, {
      name: `claim ${input.name}`,
      description: `Claims the pre-created cluster ${input.name}.`,
      ttlSeconds: input.tokenTtlSeconds,
      maxClusters: 1,
      clusterId: id,
    });
  });
  return { id, registrationToken };
}
