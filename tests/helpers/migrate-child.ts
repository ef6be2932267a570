// Runs migrate() once in its own process, for tests of instances starting at the same moment.
// Usage: node --import ./runtime/register-hooks.mjs --import tsx tests/helpers/migrate-child.ts <database json> <start at ms>
// Prints the MigrateResult as JSON on the last line; exits 1 with the error message on failure.
import { migrate } from "@/lib/server/db/migrate";
import type { Env } from "@/lib/env";

const database = JSON.parse(process.argv[2] ?? "null") as Env["database"];
const startAt = Number(process.argv[3] ?? 0);

// Both processes wait for the same wall-clock instant, so their migrations really overlap.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
try {
  const result = await migrate(database);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
