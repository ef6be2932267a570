import "server-only";
import type { MintTokenInput } from "@/lib/domain/tokens";
import { db } from "@/lib/server/db/client";
import { randomId, randomSecret, sha256Hex } from "@/lib/server/auth/secrets";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { tokenView, type TokenView } from "./token-view";

export const TOKEN_PREFIX = "frt";

/**
 * Mints a registration token: frt_<public id>_<secret>, 192 bits of secret. Only the secret's
 * SHA-256 is stored; the full token exists in this return value and nowhere else.
 */
export async function mintToken(actor: Actor, input: MintTokenInput): Promise<TokenView & { token: string }> {
  const id = randomId(12);
  const secret = randomSecret(24);
  const row = await db().$transaction(async (tx) => {
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
      },
    );
    return created;
  });
  return { ...tokenView(row), token: `${TOKEN_PREFIX}_${id}_${secret}` };
}
