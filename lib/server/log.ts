import "server-only";
import { env } from "@/lib/env";
import { redactSecrets } from "@/lib/domain/redact";

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

// Header values never reach the log, whoever logs them: an HTTP client's error often carries its
// request (Authorization, cookies, API keys), and a message can quote a header. Names stay, values go.
const REDACTED = "[redacted]";
const HEADER_NAMES = "authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token";
const HEADER_KEY = new RegExp(`^(${HEADER_NAMES})$`, "i");
const HEADERS_KEY = /^(headers|rawHeaders)$/i;
// A credential after the scheme word: long, with a digit or a token character, so prose ("bearer
// token", "basic authentication") stays readable.
const CREDENTIAL_IN_TEXT = /\b(bearer|basic)\s+(?=[\w.~+/=-]*[\d.~+/=_-])[\w.~+/=-]{8,}/gi;
const HEADER_IN_TEXT = new RegExp(`\\b(${HEADER_NAMES})(["']?\\s*[:=]\\s*["']?)[^"'\\r\\n}]+`, "gi");

export function redactText(text: string): string {
  return redactSecrets(text).replace(CREDENTIAL_IN_TEXT, `$1 ${REDACTED}`).replace(HEADER_IN_TEXT, `$1$2${REDACTED}`);
}

/** JSON.stringify's replacer: header values out, strings scrubbed, an Error as its text and own fields, cycles cut. */
function redactor() {
  const seen = new WeakSet<object>();
  return function redact(key: string, value: unknown): unknown {
    if (HEADER_KEY.test(key)) return REDACTED;
    if (typeof value === "string") return redactText(value);
    if (!value || typeof value !== "object") return value;
    if (seen.has(value)) return "[circular]";
    seen.add(value);
    if (HEADERS_KEY.test(key))
      return Array.isArray(value) ? REDACTED : Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED]));
    if (value instanceof Error) return { error: value.stack ?? String(value), ...value };
    return value;
  };
}

// One line per event, key=value fields: greppable by people, parseable by machines.
// Callers never pass secrets; tokens and keys are referred to by their public ids.
function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (ORDER.indexOf(level) < ORDER.indexOf(currentThreshold())) return;
  const parts = [new Date().toISOString(), level.toUpperCase().padEnd(5), redactText(msg)];
  for (const [k, raw] of Object.entries(fields ?? {})) {
    if (raw === undefined) continue;
    const redact = redactor();
    const v = redact(k, raw);
    const s = typeof v === "string" ? v : JSON.stringify(v, (key, value) => (key === "" ? value : redact(key, value)));
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
