import "server-only";
import type { z } from "zod";
import type { createApiKeySchema } from "@/lib/domain/api-keys";
import type { ApiKey } from "@/lib/contracts/users";
import { isRole, lowerRole, type FleetRole } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import { db, type Tx } from "@/lib/server/db/client";
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
  createdById: string | null;
};

type Creator = { id: string; email: string; role: string; disabledAt: Date | null };

/**
 * A key acts with the lower of its role and its creator's current role, and stops working when
 * its creator is disabled or gone (lib/server/auth/principal.ts): the list says so.
 */
function view(k: Row, creator: Creator | null): ApiKey {
  const now = Date.now();
  const creatorActive = !!creator && !creator.disabledAt;
  return {
    id: k.id,
    name: k.name,
    // Written only through the role enum (createApiKeySchema).
    role: k.role as FleetRole,
    // `none` on either side: the key acts only through its teams.
    effectiveRole: !creatorActive ? null : isRole(k.role) && isRole(creator.role) ? lowerRole(k.role, creator.role) : "none",
    status: k.revokedAt
      ? "revoked"
      : k.expiresAt && k.expiresAt.getTime() <= now
        ? "expired"
        : creatorActive
          ? "active"
          : "creator_disabled",
    createdBy: creator ? { id: creator.id, email: creator.email, disabled: !!creator.disabledAt } : null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
  };
}

const CREATOR_FIELDS = { id: true, email: true, role: true, disabledAt: true } as const;

export async function listApiKeys() {
  const keys = await db().apiKey.findMany({ orderBy: { createdAt: "desc" } });
  const ids = [...new Set(keys.flatMap((k) => (k.createdById ? [k.createdById] : [])))];
  const creators = new Map(
    (await db().user.findMany({ where: { id: { in: ids } }, select: CREATOR_FIELDS })).map((u) => [u.id, u]),
  );
  return keys.map((k) => view(k, (k.createdById && creators.get(k.createdById)) || null));
}

async function creatorOf(tx: Tx, k: Row): Promise<Creator | null> {
  return k.createdById ? tx.user.findUnique({ where: { id: k.createdById }, select: CREATOR_FIELDS }) : null;
}

/** frk_<id>_<secret>: only the secret's SHA-256 is stored; the key is in this answer only. */
export async function createApiKey(actor: Actor, input: z.infer<typeof createApiKeySchema>) {
  // Every key answers to a person: a key minted by a key would outlive its parent's revocation.
  if (actor.type !== "user" || !actor.id) {
    throw new ApiError("forbidden", "API keys are minted by a signed-in admin, not by another API key.");
  }
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
    return { created, creator: await creatorOf(tx, created) };
  });
  return { ...view(key.created, key.creator), key: `${API_KEY_PREFIX}_${id}_${secret}` };
}

export async function revokeApiKey(actor: Actor, id: string) {
  return db().$transaction(async (tx) => {
    const key = await tx.apiKey.findUnique({ where: { id } });
    if (!key) throw new ApiError("not_found", "No API key with this id.");
    const creator = await creatorOf(tx, key);
    if (key.revokedAt) return view(key, creator);
    const revoked = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    await recordAudit(tx, actor, "apiKey.revoke", { type: "apiKey", id }, { name: key.name });
    return view(revoked, creator);
  });
}
