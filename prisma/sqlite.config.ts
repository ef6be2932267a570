// Prisma CLI configuration for the SQLite schema (generate and migrate diff only: the app
// applies migrations itself, see lib/server/db/migrate.ts). The JS schema engine keeps the
// CLI free of downloaded binaries.
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "sqlite/schema.prisma",
  async adapter() {
    return new PrismaBetterSQLite3({ url: ":memory:" });
  },
});
