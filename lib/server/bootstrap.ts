import "server-only";
import type { Env } from "@/lib/env";
import { db } from "@/lib/server/db/client";
import { migrate } from "@/lib/server/db/migrate";
import { bootstrapAdmin } from "@/lib/server/auth/bootstrap-admin";
import { authSecret } from "@/lib/server/auth/auth-secret";
import { log } from "@/lib/server/log";
import { startPgTransport } from "@/lib/server/events/pg-transport";
import { secureDataFiles } from "@/lib/server/db/file-modes";
import { caState } from "@/lib/server/pki/current-ca";

/** Everything that must be true before the first request: schema, first admin, secrets. */
export async function bootstrap(config: Env): Promise<{ shutdownHooks: (() => Promise<void>)[] }> {
  secureDataFiles(config.dataDir, config.database.dialect === "sqlite" ? config.database.file : null);
  const migrated = await migrate(config.database);
  log.info("database ready", {
    dialect: config.database.dialect,
    applied: migrated.applied.length ? migrated.applied.join(",") : "none",
    alreadyApplied: migrated.alreadyApplied,
  });

  if (config.database.dialect === "sqlite") {
    // WAL with synchronous=NORMAL: no corruption on a crash, and a commit no longer waits for
    // an fsync (a power cut may lose the last moments). The pragma is per connection; the
    // Prisma adapter keeps one.
    await db().$executeRawUnsafe("PRAGMA synchronous = NORMAL");
    // A 64 MiB page cache (default 2 MiB) keeps the cluster tables and their indexes of a large
    // fleet in memory, and sorts and set operations build their temporary b-trees in memory.
    await db().$executeRawUnsafe("PRAGMA cache_size = -65536");
    await db().$executeRawUnsafe("PRAGMA temp_store = MEMORY");
  }

  authSecret();
  // Before any port opens: a sealed CA without its KEK stops the start here (CaKeyError).
  await caState();
  const admin = await bootstrapAdmin(db(), { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD });
  if (admin?.generatedPassword) {
    // Printed once, on the start that created the account; it is stored only as a hash.
    process.stdout.write(
      `\n  First admin created. Sign in with:\n    email:    ${admin.email}\n    password: ${admin.generatedPassword}\n  (shown once; change it or set ADMIN_EMAIL/ADMIN_PASSWORD)\n\n`,
    );
  } else if (admin) {
    log.info("first admin created from ADMIN_EMAIL", { email: admin.email });
  }

  const hooks: (() => Promise<void>)[] = [];
  if (config.database.dialect === "postgres") hooks.push(await startPgTransport(config.database.url));
  hooks.push(() => db().$disconnect());
  return { shutdownHooks: hooks };
}
