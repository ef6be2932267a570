// The SQL that creates the current models from nothing, straight from the Prisma schema (no
// database needed): the reference a freshly migrated database is compared with.
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { Engine } from "./test-database";

const root = path.resolve(import.meta.dirname, "../..");

export function modelSql(engine: Engine): string {
  const prisma = path.join(root, "node_modules/.bin/prisma");
  return execFileSync(
    prisma,
    [
      "migrate",
      "diff",
      "--config",
      `prisma/${engine}.config.ts`,
      "--from-empty",
      "--to-schema-datamodel",
      `prisma/${engine}/schema.prisma`,
      "--script",
    ],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" } },
  );
}
