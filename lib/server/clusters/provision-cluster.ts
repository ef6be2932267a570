import "server-only";
import { z } from "zod";
import { clusterNameSchema } from "@/lib/domain/agent-protocol";
import { labelsSchema } from "@/lib/domain/labels";
import { randomId } from "@/lib/server/auth/secrets";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { publish } from "@/lib/server/events/bus";

export const provisionClusterSchema = z
  .object({ name: clusterNameSchema, labels: labelsSchema.default({}), description: z.string().trim().max(500).optional() })
  .strict();

/**
 * Pre-creates a cluster record in phase Provisioning. The first agent that registers with this
 * name (and a valid token) claims it: it keeps this id and gets its identity then.
 */
export async function provisionCluster(actor: Actor, input: z.infer<typeof provisionClusterSchema>) {
  const id = `cl_${randomId(16)}`;
  const now = new Date();
  await db().$transaction(async (tx) => {
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
    await tx.clusterEvent.create({
      data: {
        clusterId: id,
        clusterName: input.name,
        kind: "phase",
        toValue: "Provisioning",
        reason: `pre-created by ${actor.label}`,
        at: now,
      },
    });
    await recordAudit(tx, actor, "cluster.provision", { type: "cluster", id }, { name: input.name, labels: input.labels });
  });
  publish({ type: "cluster.registered", clusterId: id, name: input.name, reregistered: false, at: now.toISOString() });
  return id;
}
