// Direct SQL on the e2e server's database, for the rare state the API can no longer create (rows
// saved by older versions, say). The same database the server uses: E2E_DATABASE_URL or the
// run's SQLite file. Values are the test's own, never user input.
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { DATA_DIR } from "./run";

export async function execSql(text: string, params: (string | number | null)[] = []): Promise<void> {
  const url = process.env.E2E_DATABASE_URL;
  if (url && /^postgres(ql)?:/.test(url)) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      let n = 0;
      await client.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      );
    } finally {
      await client.end();
    }
    return;
  }
  const db = new Database(path.join(DATA_DIR, "fleet.db"), { timeout: 5000 });
  try {
    db.prepare(text).run(...params);
  } finally {
    db.close();
  }
}

/** A timestamp as both engines' Prisma adapters store and read it. */
export function sqlTimestamp(date = new Date()): string {
  return date.toISOString().replace("Z", "+00:00");
}
