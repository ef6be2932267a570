// Prisma CLI configuration for the PostgreSQL schema (generate and migrate diff only: the
// app applies migrations itself, see lib/server/db/migrate.ts).
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "postgres/schema.prisma",
  async adapter() {
    // Never used by generate or diff --from-empty; present because engine "js" requires it.
    return new PrismaPg({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" });
  },
});
