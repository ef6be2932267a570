// The agent's log: one line per event, each with a stable code after the `fleet-agent` prefix so
// operators and tests can grep for it (`fleet-agent TOKEN_EXPIRED ...`). The codes are part of
// the agent's interface: add new ones, never rename.
import { redactCredentials } from "../domain/redact";

export const LOG_CODES = [
  // lifecycle
  "AGENT_START",
  "AGENT_STOPPED",
  "AGENT_FAILED",
  "CONFIG_INVALID",
  // trust in the control plane
  "TRUST_CA_FILE",
  "TRUST_PIN_VERIFIED",
  "TRUST_PIN_MISMATCH",
  "TRUST_STATE_CA",
  "TRUST_MISSING",
  "CA_MISMATCH",
  "CA_BUNDLE_UPDATED",
  // local state
  "STATE_LOADED",
  "STATE_INVALID",
  "STATE_RECOVERED",
  "STATE_DELETED",
  "STATE_SAVE_FAILED",
  "STATE_TOMBSTONE",
  "STATE_UNAVAILABLE",
  "STATE_OTHER_CLUSTER",
  "LEASE_WAITING",
  "LEASE_ACQUIRED",
  "LEASE_LOST",
  "LEASE_CREATED",
  "LEASE_RENEW_FAILING",
  "CLUSTER_CA",
  // registration
  "TOKEN_FILE_MISSING",
  "TOKEN_AWAITED",
  "TOKEN_ALREADY_USED",
  "REGISTERING",
  "REGISTERED",
  "REREGISTERING",
  "REREGISTRATION_NEEDED",
  "TOKEN_FILE_DELETED",
  "TOKEN_FILE_NOT_DELETED",
  "APPROVAL_PENDING",
  // error codes answered by the server (docs/protocol.md), one log code each
  "TOKEN_MISSING",
  "TOKEN_INVALID",
  "TOKEN_EXPIRED",
  "TOKEN_REVOKED",
  "TOKEN_EXHAUSTED",
  "LABEL_NOT_ALLOWED",
  "MISSING_REQUIRED_LABELS",
  "CLUSTER_CONFLICT",
  "INVALID_REQUEST",
  "INVALID_CSR",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED",
  "OVERLOADED",
  "DATABASE_UNAVAILABLE",
  "CLIENT_CERTIFICATE_REQUIRED",
  "CERTIFICATE_REVOKED",
  "CLUSTER_DEREGISTERED",
  "REGISTRATION_DENIED",
  "REGISTRATION_REQUEST_EXPIRED",
  "STALE_LEASE_HOLDER",
  "SERVER_ERROR",
  "UNEXPECTED_RESPONSE",
  "BAD_RESPONSE",
  // transport
  "NET_CONNREFUSED",
  "NET_TIMEOUT",
  "NET_NOTFOUND",
  "NET_RESET",
  "NET_UNREACHABLE",
  "NET_ERROR",
  "TLS_UNTRUSTED",
  "TLS_HOSTNAME_MISMATCH",
  "TLS_CERT_EXPIRED",
  "TLS_HANDSHAKE",
  // heartbeats
  "HEARTBEAT_OK",
  "STATUS_CHANGED",
  "INTERVAL_CHANGED",
  // directives and policy
  "DIRECTIVE_RECEIVED",
  "DISCONNECT",
  "DISCONNECTED",
  "DRAIN",
  "DRAIN_COMPLETE",
  "DRAIN_CANCELLED",
  "UPGRADE_STARTED",
  "UPGRADE_COMPLETE",
  "UPGRADE_ROLLED_BACK",
  "UPGRADE_BY_GITOPS",
  "UPGRADE_CONFIRMED",
  "PREFLIGHT_OK",
  "PREFLIGHT_FAILED",
  "NODE_POOL_DRAIN",
  "NODE_POOL_REMOVED",
  "DIRECTIVE_UNKNOWN",
  "DIRECTIVE_DONE",
  "DIRECTIVE_FAILED",
  "DIRECTIVE_WAITING",
  "NODE_CORDONED",
  // the cluster's own API
  "KUBE_CONFIG",
  "KUBE_API_ERROR",
  "CLUSTER_UID_UNKNOWN",
  "NODE_POOLS_FOLDED",
  "FACTS_PART_PENDING",
  "SCALED_TO_ZERO",
  "BINDINGS_DELETED",
  "LEFT_FOR_ADMIN",
  "OUTSIDE_CLUSTER",
  "DRAIN_BLOCKED",
  "DIRECTIVE_INVALID",
  "POLICY_APPLIED",
  // certificate rotation
  "ROTATE_DUE",
  "ROTATE_REQUESTED",
  "ROTATED",
  "ROTATE_FAILED",
] as const;
export type LogCode = (typeof LOG_CODES)[number];

export type LogLevel = "debug" | "info" | "warn" | "error";
const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];
export function isLogLevel(v: string): v is LogLevel {
  return (LEVELS as readonly string[]).includes(v);
}

export type LogFields = Record<string, string | number | boolean | null | undefined>;
export interface LogEntry {
  level: LogLevel;
  code: LogCode;
  message: string;
  fields?: LogFields;
}
export interface AgentLogger {
  log(entry: LogEntry): void;
}

export const LOG_PREFIX = "fleet-agent";

// Defence in depth: callers never pass secrets, but a server message or an error string could
// echo one back. Registration tokens and private keys are scrubbed from every line.
export const redact = redactCredentials;

/** `2026-11-29T10:00:00.000Z WARN  fleet-agent TOKEN_EXPIRED <message> key=value ...` */
export function formatEntry(entry: LogEntry, time: Date): string {
  const parts = [time.toISOString(), entry.level.toUpperCase().padEnd(5), LOG_PREFIX, entry.code, entry.message];
  for (const [key, value] of Object.entries(entry.fields ?? {})) {
    if (value === undefined) continue;
    const s = String(value);
    parts.push(`${key}=${s === "" || /[\s"=]/.test(s) ? JSON.stringify(s) : s}`);
  }
  return redact(parts.join(" "));
}

export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export function isLogFormat(v: string): v is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(v);
}

/**
 * `{"time":"2026-11-29T10:00:00.000Z","level":"warn","code":"TOKEN_EXPIRED","message":"...","fields":{...}}`:
 * one object per line for log pipelines (Loki, Elasticsearch, Cloud Logging) that parse JSON.
 * Each string is redacted before it is encoded, so the line stays valid JSON.
 */
export function formatJsonEntry(entry: LogEntry, time: Date): string {
  const fields: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(entry.fields ?? {})) {
    if (value === undefined) continue;
    fields[key] = typeof value === "string" ? redact(value) : value;
  }
  return JSON.stringify({
    time: time.toISOString(),
    level: entry.level,
    code: entry.code,
    message: redact(entry.message),
    fields,
  });
}

export interface ConsoleLoggerOptions {
  level?: LogLevel;
  /** text (default): the prefixed line above; json: formatJsonEntry. */
  format?: LogFormat;
  /** Defaults to stdout for debug/info and stderr for warn/error. */
  write?: (line: string, level: LogLevel) => void;
  now?: () => number;
  /** Fields added to every line, e.g. `{ cluster: "prod-eu-1" }`. */
  fields?: LogFields;
}

export function consoleLogger(options: ConsoleLoggerOptions = {}): AgentLogger {
  const threshold = LEVELS.indexOf(options.level ?? "info");
  const now = options.now ?? Date.now;
  const format = options.format === "json" ? formatJsonEntry : formatEntry;
  const write =
    options.write ??
    ((line: string, level: LogLevel) =>
      (level === "warn" || level === "error" ? process.stderr : process.stdout).write(line + "\n"));
  return {
    log(entry) {
      if (LEVELS.indexOf(entry.level) < threshold) return;
      const fields = options.fields ? { ...options.fields, ...entry.fields } : entry.fields;
      write(format({ ...entry, fields }, new Date(now())), entry.level);
    },
  };
}

/** Keeps entries in memory: for tests, and for callers that aggregate (the simulator). */
export class MemoryLogger implements AgentLogger {
  readonly entries: LogEntry[] = [];
  log(entry: LogEntry) {
    this.entries.push(entry);
  }
  codes(): LogCode[] {
    return this.entries.map((e) => e.code);
  }
  has(code: LogCode): boolean {
    return this.entries.some((e) => e.code === code);
  }
  lines(): string[] {
    return this.entries.map((e) => formatEntry(e, new Date(0)));
  }
}

export const silentLogger: AgentLogger = { log() {} };
