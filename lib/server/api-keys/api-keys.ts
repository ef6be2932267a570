import "server-only";
import type { z } from "zod";
import type { createApiKeySchema } from "@/lib/domain/api-keys";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { randomId, randomSecret, sha256Hex } from "@/lib/server/auth/secrets";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";

export const API_KEY_PREFIX = "frk";

type Row = {
  id: string;
  name: string;
  role: string;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
};

function view(k: Row) {
  const now = Date.now();
  return {
    id: k.id,
    name: k.name,
    role: k.role,
    status: k.revokedAt ? "revoked" : k.expiresAt && k.expiresAt.getTime() <= now ? "expired" : "active",
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
  };
}

export async function listApiKeys() {
  return (await db().apiKey.findMany({ orderBy: { createdAt: "desc" } })).map(view);
}

/** frk_<id>_<secret>: only the secret's SHA-256 is stored; the key is in this answer only. */
export async function createApiKey(actor: Actor, input: z.infer<typeof createApiKeySchema>) {
  const id = randomId(12);
  const secret = randomSecret(24);
  const key = await db().$transaction(async (tx) => {
    const created = await tx.apiKey.create({
      data: {
        id,
        name: input.name,
        role: input.role,
        secretHash: sha256Hex(secret),
        createdById: actor.id,
        expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null,
      },
    });
    await recordAudit(
      tx,
      actor,
      "apiKey.create",
      { type: "apiKey", id },
      { name: input.name, role: input.role, expiresInDays: input.expiresInDays ?? null },
    );
    return created;
  });
  return { ...view(key), key: `${API_KEY_PREFIX}_${id}_${secret}` };
}

export async function revokeApiKey(actor: Actor, id: string) {
  return db().$transaction(async (tx) => {
    const key = await tx.apiKey.findUnique({ where: { id } });
    if (!key) throw new ApiError("not_found", "No API key with this id.");
    if (key.revokedAt) return view(key);
    const revoked = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    await recordAudit(tx, actor, "apiKey.revoke", { type: "apiKey", id }, { name: key.name });
    return view(revoked);
  });
}
