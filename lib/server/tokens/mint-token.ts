import "server-only";
import type { MintTokenInput } from "@/lib/domain/tokens";
import { ApiError } from "@/lib/server/api/errors";
import { db, type Tx } from "@/lib/server/db/client";
import { randomId, randomSecret, sha256Hex } from "@/lib/server/auth/secrets";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { MintedToken } from "@/lib/contracts/tokens";
import { getSettings } from "@/lib/server/settings/settings";
import { tokenView } from "./token-view";

export const TOKEN_PREFIX = "frt";

/**
 * Mints a registration token: frt_<public id>_<secret>, 192 bits of secret. Only the secret's
 * SHA-256 is stored; the full token exists in this return value and nowhere else.
 */
export async function mintToken(actor: Actor, input: MintTokenInput): Promise<MintedToken> {
  return db().$transaction((tx) => mintTokenIn(tx, actor, input));
}

/**
 * The mint inside a caller's transaction (pre-creating a cluster mints its bound token in the
 * same one). A bound token (`clusterId`) names an existing cluster: 404 otherwise.
 */
export async function mintTokenIn(tx: Tx, actor: Actor, input: MintTokenInput): Promise<MintedToken> {
  const id = randomId(12);
  const secret = randomSecret(24);
  let boundTo: { id: string; name: string } | null = null;
  if (input.clusterId !== undefined) {
    boundTo = await tx.cluster.findUnique({ where: { id: input.clusterId }, select: { id: true, name: true } });
    if (!boundTo) throw new ApiError("not_found", `No cluster with the id ${input.clusterId} to bind the token to.`);
  }
  const requireApproval = input.requireApproval ?? (await getSettings()).requireApprovalByDefault;
  const created = await tx.registrationToken.create({
    data: {
      id,
      name: input.name,
      description: input.description ?? null,
      secretHash: sha256Hex(secret),
      expiresAt: new Date(Date.now() + input.ttlSeconds * 1000),
      maxClusters: input.maxClusters,
      allowedLabels: input.allowedLabels ? JSON.stringify(input.allowedLabels) : null,
      fixedLabels: JSON.stringify(input.fixedLabels ?? {}),
      clusterId: boundTo?.id ?? null,
      requireApproval,
      createdById: actor.id,
    },
  });
  await recordAudit(
    tx,
    actor,
    "token.mint",
    { type: "registrationToken", id },
    {
      name: input.name,
      ttlSeconds: input.ttlSeconds,
      maxClusters: input.maxClusters,
      allowedLabels: input.allowedLabels ?? "any",
      fixedLabels: input.fixedLabels ?? {},
      requireApproval,
      ...(boundTo ? { boundToCluster: { id: boundTo.id, name: boundTo.name } } : {}),
    },
  );
  return { ...tokenView(created), token: `${TOKEN_PREFIX}_${id}_${secret}` };
}
