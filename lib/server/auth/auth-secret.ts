import "server-only";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { randomSecret } from "./secrets";

let cached: string | undefined;

/**
 * The key that signs console sessions: AUTH_SECRET, or one generated on first start and kept
 * in the data dir so sessions survive restarts. Instances behind one load balancer must share
 * it (set AUTH_SECRET, or share the data dir).
 */
export function authSecret(): string {
  if (cached) return cached;
  const fromEnv = env().AUTH_SECRET;
  if (fromEnv) return (cached = fromEnv);
  const file = path.join(env().dataDir, "auth-secret");
  try {
    cached = readFileSync(file, "utf8").trim();
    // Files written by older versions may be wider than the service's own user.
    chmodSync(file, 0o600);
  } catch {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const secret = randomSecret(32);
    try {
      // "wx": when two processes race on first start, the first writer wins and both read it.
      writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
    } catch {}
    cached = readFileSync(file, "utf8").trim();
  }
  return cached;
}
