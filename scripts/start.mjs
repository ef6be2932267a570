// `npm start`: build once if there is no build, then run the server.
import { existsSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";

// Air-gapped by design: Next's anonymous telemetry would only try, and fail, to reach out.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

if (!existsSync(".next/BUILD_ID")) {
  console.log("No build found: building the console once (about a minute)...");
  execFileSync("npx", ["next", "build"], { stdio: "inherit" });
}
const child = spawn(process.execPath, ["--import", "./scripts/register-hooks.mjs", "--import", "tsx", "server.ts"], {
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? "production" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
