import "server-only";
import { randomSecret } from "./secrets";
import { hashPassword } from "./password";
import type { Db } from "@/lib/server/db/client";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";

/**
 * Creates the first admin when the database has no users. Returns the generated password
 * when one was made up (the caller prints it once), or null.
 */
export async function bootstrapAdmin(
  db: Db,
  config: { email?: string; password?: string },
): Promise<{ email: string; generatedPassword: string | null } | null> {
  if ((await db.user.count()) > 0) return null;
  const email = (config.email ?? "admin@localhost").toLowerCase();
  const generatedPassword = config.password ? null : randomSecret(15);
  const passwordHash = await hashPassword(config.password ?? generatedPassword!);
  try {
    const user = await db.user.create({ data: { email, name: "Administrator", role: "admin", passwordHash } });
    await recordAudit(db, SYSTEM_ACTOR, "user.bootstrap", { type: "user", id: user.id }, { email, role: "admin" });
  } catch (err) {
    // Another instance created the first user at the same moment.
    if ((await db.user.count()) > 0) return null;
    throw err;
  }
  return { email, generatedPassword };
}
