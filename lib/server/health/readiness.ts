import "server-only";
import { db, dialect } from "@/lib/server/db/client";
import { pendingMigrations } from "@/lib/server/db/migrate";

export type Readiness = { ready: boolean; database: "ok" | "unreachable"; pendingMigrations: string[] };

// A probe answers within this even when the database neither answers nor refuses.
const PROBE_TIMEOUT_MS = 3_000;

/** Ready: the database answers (within PROBE_TIMEOUT_MS) and no migration is pending. */
export async function readiness(): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("readiness probe timed out")), PROBE_TIMEOUT_MS);
    });
    const check = pendingMigrations((sql) => db().$queryRawUnsafe<{ name: string }[]>(sql), dialect());
    const pending = await Promise.race([check, timeout]);
    return { ready: pending.length === 0, database: "ok", pendingMigrations: pending };
  } catch {
    return { ready: false, database: "unreachable", pendingMigrations: [] };
  } finally {
    clearTimeout(timer);
  }
}
