// Generates the Prisma client for each dialect (postinstall; `@prisma/client` does not).
import { execFileSync } from "node:child_process";

execFileSync(process.execPath, ["scripts/prisma-schemas.mjs", "--check"], { stdio: "inherit" });
for (const dialect of ["sqlite", "postgres"]) {
  execFileSync("npx", ["prisma", "generate", "--config", `prisma/${dialect}.config.ts`], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}
console.log("prisma clients generated (sqlite, postgres)");
