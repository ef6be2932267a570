// Writes one Prisma schema per database dialect from prisma/models.prisma.
// `node scripts/prisma-schemas.mjs --check` exits 1 when the committed files differ.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// The URL is a placeholder: the driver adapter supplies the real connection, but Prisma
// needs a syntactically valid URL or it falls back to downloading an engine (STACK.md).
export const dialects = {
  sqlite: { provider: "sqlite", url: "file:./placeholder.db" },
  postgres: { provider: "postgresql", url: "postgresql://placeholder@127.0.0.1:5432/placeholder" },
};

export function renderSchema(dialect) {
  const { provider, url } = dialects[dialect];
  const models = readFileSync(join(root, "prisma/models.prisma"), "utf8");
  return `// GENERATED from prisma/models.prisma by scripts/prisma-schemas.mjs. Do not edit.

generator client {
  provider       = "prisma-client"
  output         = "../../lib/server/db/generated/${dialect}"
  engineType     = "client"
  runtime        = "nodejs"
  moduleFormat   = "esm"
}

datasource db {
  provider = "${provider}"
  url      = "${url}"
}

${models}`;
}

export function schemaPath(dialect) {
  return join(root, "prisma", dialect, "schema.prisma");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  let stale = false;
  for (const dialect of Object.keys(dialects)) {
    const path = schemaPath(dialect);
    const wanted = renderSchema(dialect);
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {}
    if (current === wanted) continue;
    if (check) {
      console.error(`${path} is stale: run npm run db:schemas`);
      stale = true;
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, wanted);
      console.log(`wrote ${path}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
