// For integration tests of services: a fresh, migrated database of TEST_ENGINE wired in as the
// app's own database (lib/env.ts reads DATABASE_URL and DATA_DIR on first use), so services call
// db() as they do in the server. Each test file runs in its own process, so this is per file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { db } from "@/lib/server/db/client";
import { migrate } from "@/lib/server/db/migrate";
import { createTestDatabase, type TestDatabase } from "./test-database";

export function appDatabase(): { readonly current: TestDatabase } {
  let database: TestDatabase | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), "fleet-it-data-"));
  before(async () => {
    database = await createTestDatabase();
    await migrate(database.database);
    process.env.DATABASE_URL = database.url;
    process.env.DATA_DIR = dataDir;
  });
  after(async () => {
    await db().$disconnect();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get current() {
      if (!database) throw new Error("appDatabase(): the database exists from the first test on (before hook)");
      return database;
    },
  };
}
