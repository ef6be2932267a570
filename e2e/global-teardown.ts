// The run's temp dir (server data dir, saved sessions) goes away unless asked to keep it.
import { rmSync } from "node:fs";
import { RUN_DIR } from "./support/run";

export default async function globalTeardown() {
  if (process.env.E2E_KEEP_RUN_DIR === "1") {
    console.log(`e2e run dir kept: ${RUN_DIR}`);
    return;
  }
  // The server still runs (it stops after this): removing its files under it is fine on POSIX.
  rmSync(RUN_DIR, { recursive: true, force: true });
}
