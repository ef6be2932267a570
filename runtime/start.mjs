// `npm start`: build if there is no build or the sources changed since it (after a `git pull`),
// then run the server.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { SERVER_NODE_FLAGS } from "./server-node-flags.mjs";

// Air-gapped by design: Next's anonymous telemetry would only try, and fail, to reach out.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

// What the build is made of (the same list as build_is_stale in tests/helpers/test-lib.sh).
const SOURCES = [
  "app",
  "components",
  "lib",
  "public",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
  "server.ts",
  "agent-worker.ts",
  "scripts/build-server.mjs",
];
// `npm run build`: Next's build, then the server compiled beside it (scripts/build-server.mjs).
const SERVER = ".next/fleet/server.mjs";

/** Whether any file under `entry` was modified after `since` (ms). */
function changedSince(entry, since) {
  if (!existsSync(entry)) return false;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs > since;
  return readdirSync(entry).some((name) => changedSince(path.join(entry, name), since));
}

const buildId = ".next/BUILD_ID";
if (!existsSync(buildId) || !existsSync(SERVER)) {
  console.log("No build found: building the console once (about a minute)...");
  execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
} else if (SOURCES.some((entry) => changedSince(entry, statSync(buildId).mtimeMs))) {
  console.log("Sources changed since the last build: rebuilding the console (about a minute)...");
  execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
}
// The fleet CA's private key is sealed with a key-encryption key kept OUTSIDE the data dir, so a
// copy of the data alone cannot mint certificates agents trust. Without one configured, the
// first start generates it beside the checkout (git-ignored) and says so once.
const kekEnv = {};
if (!process.env.FLEET_CA_KEK && !process.env.FLEET_CA_KEK_FILE) {
  const kekFile = path.resolve("fleet-ca.kek");
  if (!existsSync(kekFile)) {
    writeFileSync(kekFile, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
    console.log(
      `\n  Generated the fleet CA key-encryption key: ${kekFile}\n` +
        "  It seals the CA private key stored in the database. Back it up SEPARATELY from the\n" +
        "  database: without it the CA cannot be opened; with it and a copy of the data, anyone can\n" +
        "  mint certificates agents trust. Give every instance the same one (FLEET_CA_KEK_FILE).\n",
    );
  }
  chmodSync(kekFile, 0o600);
  kekEnv.FLEET_CA_KEK_FILE = kekFile;
}
// Sign-in builds its redirects from NEXTAUTH_URL, never from a request's Host, and a production
// server listening beyond loopback does not start without it. Started here, on one's own machine,
// the console is where the README says it is.
const authEnv = {};
if (!process.env.NEXTAUTH_URL) {
  authEnv.NEXTAUTH_URL = `http://localhost:${process.env.PORT || 3000}`;
  console.log(
    `NEXTAUTH_URL is not set: sign-in uses ${authEnv.NEXTAUTH_URL}. Set NEXTAUTH_URL to the URL people open the console at.`,
  );
}
const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER], {
  stdio: "inherit",
  env: { ...process.env, ...kekEnv, ...authEnv, NODE_ENV: process.env.NODE_ENV ?? "production" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
