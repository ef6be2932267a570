import "server-only";
import { z } from "zod";
import { clusterNameSchema } from "@/lib/domain/agent-protocol";
import { labelsSchema } from "@/lib/domain/labels";
import { TOKEN_TTL_DEFAULT_SECONDS, TOKEN_TTL_MAX_SECONDS } from "@/lib/domain/tokens";
import { randomId } from "@/lib/server/auth/secrets";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { mintTokenIn, type MintedToken } from "@/lib/server/tokens/mint-token";

export const provisionClusterSchema = z
  .object({
    name: clusterNameSchema,
    labels: labelsSchema.default({}),
    description: z.string().trim().max(500).optional(),
    /** How long the claim token minted with the cluster lives. */
    tokenTtlSeconds: z.number().int().min(60).max(TOKEN_TTL_MAX_SECONDS).default(TOKEN_TTL_DEFAULT_SECONDS),
  })
  .strict();

/**
 * Pre-creates a cluster record in phase Provisioning, and in the same transaction a registration
 * token bound to it: only an agent presenting that token (or another bound one) claims the
 * record; it keeps this id and gets its identity then. The token is in this return value only.
 */
export async function provisionCluster(
  actor: Actor,
  input: z.infer<typeof provisionClusterSchema>,
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
