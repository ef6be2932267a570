import "server-only";
import { db, dialect } from "@/lib/server/db/client";
import { pendingMigrations } from "@/lib/server/db/migrate";

export type Readiness = { ready: boolean; database: "ok" | "unreachable"; pendingMigrations: string[] };

export async function readiness(): Promise<Readiness> {
  try {
    const pending = await pendingMigrations((sql) => db().$queryRawUnsafe<{ name: string }[]>(sql), dialect());
    return { ready: pending.length === 0, database: "ok", pendingMigrations: pending };
  } catch {
    return { ready: false, database: "unreachable", pendingMigrations: [] };
  }
}
