// The per-dialect Prisma schemas are generated from prisma/models.prisma; a stale one would make
// the two engines' clients (and migrations) disagree.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";

test("prisma/<dialect>/schema.prisma are up to date with prisma/models.prisma (prisma-schemas --check exits 0)", () => {
  // execFileSync throws, with the script's message, when it exits non-zero.
  execFileSync(process.execPath, ["scripts/prisma-schemas.mjs", "--check"], { stdio: ["ignore", "pipe", "pipe"] });
});

test("both dialects' schemas carry the same models; only the generator and datasource differ", () => {
  const models = readFileSync("prisma/models.prisma", "utf8");
  for (const dialect of ["sqlite", "postgres"]) {
    const schema = readFileSync(`prisma/${dialect}/schema.prisma`, "utf8");
    assert.ok(schema.endsWith(models), `prisma/${dialect}/schema.prisma ends with the models verbatim`);
    assert.match(schema, /engineType\s*=\s*"client"/, "the Rust-free client (STACK.md)");
  }
});
