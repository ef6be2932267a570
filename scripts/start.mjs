// `npm start`: build if there is no build or the sources changed since it (after a `git pull`),
// then run the server.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";

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
];

/** Whether any file under `entry` was modified after `since` (ms). */
function changedSince(entry, since) {
  if (!existsSync(entry)) return false;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs > since;
  return readdirSync(entry).some((name) => changedSince(path.join(entry, name), since));
}

const buildId = ".next/BUILD_ID";
if (!existsSync(buildId)) {
  console.log("No build found: building the console once (about a minute)...");
  execFileSync("npx", ["next", "build"], { stdio: "inherit" });
} else if (SOURCES.some((entry) => changedSince(entry, statSync(buildId).mtimeMs))) {
  console.log("Sources changed since the last build: rebuilding the console (about a minute)...");
  execFileSync("npx", ["next", "build"], { stdio: "inherit" });
}
const child = spawn(process.execPath, ["--import", "./scripts/register-hooks.mjs", "--import", "tsx", "server.ts"], {
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? "production" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
