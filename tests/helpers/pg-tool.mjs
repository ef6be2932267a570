// Small PostgreSQL chores for the test scripts, without psql (a laptop may not have it):
//   node tests/helpers/pg-tool.mjs check [url]            exit 0 when the server answers, else 1 (reason on stderr)
//   node tests/helpers/pg-tool.mjs create <prefix> [url]  create a fresh database, print its URL
//   node tests/helpers/pg-tool.mjs drop <database url>    drop that database (and its sessions)
//   node tests/helpers/pg-tool.mjs scalar <url> <sql>     print the first column of the first row
// [url] defaults to TEST_DATABASE_URL, then postgresql://127.0.0.1:5432/test.
import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import pg from "pg";

// node-pg falls back only to $USER when the URL names no user (libpq uses the OS user): fill it in.
function serverUrl(url) {
  const u = new URL(url || process.env.TEST_DATABASE_URL || "postgresql://127.0.0.1:5432/test");
  if (!u.username) u.username = process.env.PGUSER || process.env.USER || userInfo().username;
  return u;
}

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const [command, arg1, arg2] = process.argv.slice(2);
try {
  if (command === "check") {
    await withClient(serverUrl(arg1), (c) => c.query("SELECT 1"));
  } else if (command === "create") {
    if (!/^[a-z_][a-z0-9_]*$/.test(arg1 ?? "")) throw new Error("create: give a prefix like fleet_e2e");
    const url = serverUrl(arg2);
    const name = `${arg1}_${randomBytes(5).toString("hex")}`;
    await withClient(url, (c) => c.query(`CREATE DATABASE "${name}"`));
    url.pathname = `/${name}`;
    console.log(url.toString());
  } else if (command === "drop") {
    const url = serverUrl(arg1);
    const name = decodeURIComponent(url.pathname.slice(1));
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`drop: not a test database name: ${name}`);
    // Connect to the server's maintenance database (the one TEST_DATABASE_URL names) to drop it.
    url.pathname = serverUrl().pathname;
    await withClient(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  } else if (command === "scalar") {
    const rows = await withClient(serverUrl(arg1), (c) => c.query({ text: arg2 ?? "", rowMode: "array" }));
    console.log(String(rows.rows[0]?.[0] ?? ""));
  } else {
    throw new Error("usage: pg-tool.mjs check [url] | create <prefix> [url] | drop <url> | scalar <url> <sql>");
  }
} catch (err) {
  console.error(`pg-tool ${command}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
