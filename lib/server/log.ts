import "server-only";
import { env } from "@/lib/env";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Level[] = ["debug", "info", "warn", "error"];
let threshold: Level | null = null;

export function setLogLevel(level: Level) {
  threshold = level;
}

function currentThreshold(): Level {
  if (threshold) return threshold;
  try {
    threshold = env().LOG_LEVEL;
  } catch {
    threshold = "info";
  }
  return threshold;
}

// One line per event, key=value fields: greppable by people, parseable by machines.
// Callers never pass secrets; tokens and keys are referred to by their public ids.
function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (ORDER.indexOf(level) < ORDER.indexOf(currentThreshold())) return;
  const parts = [new Date().toISOString(), level.toUpperCase().padEnd(5), msg];
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (v === undefined) continue;
    const s = typeof v === "string" ? v : JSON.stringify(v);
    parts.push(`${k}=${/\s/.test(s) ? JSON.stringify(s) : s}`);
  }
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(parts.join(" ") + "\n");
}

export const log = {
  debug: (msg: string, f?: Record<string, unknown>) => write("debug", msg, f),
  info: (msg: string, f?: Record<string, unknown>) => write("info", msg, f),
  warn: (msg: string, f?: Record<string, unknown>) => write("warn", msg, f),
  error: (msg: string, f?: Record<string, unknown>) => write("error", msg, f),
};
