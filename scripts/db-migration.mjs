// npm run db:migration -- <name> [--from <git rev>]
// Writes prisma/migrations/<dialect>/<NNNN_name>/migration.sql for both dialects: the SQL that
// takes the schema as committed at <git rev> (default HEAD) to the current models. Run
// `npm run db:schemas` first. Needs a reachable PostgreSQL for the PostgreSQL diff.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const name = args.find((a) => !a.startsWith("--"));
const fromIdx = args.indexOf("--from");
const rev = fromIdx >= 0 ? args[fromIdx + 1] : "HEAD";
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migration -- <name_in_snake_case> [--from <git rev>]");
  process.exit(2);
}
for (const dialect of ["sqlite", "postgres"]) {
  const dir = path.join("prisma", "migrations", dialect);
  const next = String(
    Math.max(
      0,
      ...readdirSync(dir)
        .filter((d) => /^\d{4}_/.test(d))
        .map((d) => Number(d.slice(0, 4))),
    ) + 1,
  ).padStart(4, "0");
  const old = path.join(tmpdir(), `fleet-${dialect}-${Date.now()}.prisma`);
  writeFileSync(old, execFileSync("git", ["show", `${rev}:prisma/${dialect}/schema.prisma`]));
  const sql = execFileSync(
    "npx",
    [
      "prisma",
      "migrate",
      "diff",
      "--config",
      `prisma/${dialect}.config.ts`,
      "--from-schema-datamodel",
      old,
      "--to-schema-datamodel",
      `prisma/${dialect}/schema.prisma`,
      "--script",
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  const target = path.join(dir, `${next}_${name}`);
  mkdirSync(target, { recursive: true });
  writeFileSync(path.join(target, "migration.sql"), sql);
  console.log(`wrote ${target}/migration.sql`);
}
