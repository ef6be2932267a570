// Prisma CLI configuration for the PostgreSQL schema (generate and migrate diff only: the
// app applies migrations itself, see lib/server/db/migrate.ts).
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "postgres/schema.prisma",
  async adapter() {
    // generate does not connect; migrate diff does (it asks the server for its version), so
    // writing a PostgreSQL migration needs a reachable server. The app never uses this.
    return new PrismaPg({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres", allowExitOnIdle: true });
  },
});
