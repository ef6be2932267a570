import { agentAdvice } from "../domain/registration-errors";
import { errorText } from "../domain/error-text";
import type { LogCode, LogLevel } from "./log";

/** An error answer from the control plane: `{ "error": code, "message", "details"? }`. */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly serverMessage: string,
    readonly details?: unknown,
    /** From Retry-After, when the server sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status} ${code}: ${serverMessage}`);
    this.name = "ProtocolError";
  }
}

/** The server answered 2xx with something that is not what docs/protocol.md promises. */
export class BadResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadResponseError";
  }
}

/** Wrong flags, unreadable files, a pin that does not match: retrying cannot help. */
export class ConfigError extends Error {
  constructor(
    readonly code: LogCode,
    message: string,
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Our own request deadline passed (Node has no error of its own for this). */
export class TimeoutError extends Error {
  readonly code = "ETIMEDOUT";
  constructor(message: string) {
    super(message);
    this.name = "TimeoutError";
  }
}

export type Phase = "trust" | "register" | "heartbeat" | "rotate";

/**
 * What to do about a failure: `retry` (with backoff, or after `retryAfterMs`), `reject` (the
 * registration was refused for good: fix the flags or the token), `reregister` (our client
 * certificate is no longer accepted), `deregistered` (stop and delete state), `stopped` (we
 * aborted it ourselves), `stepDown` (another agent of this cluster took over its Lease: stop
 * acting for the cluster).
 */
export type FailureAction = "retry" | "reject" | "reregister" | "deregistered" | "stopped" | "stepDown";

export interface Failure {
  code: LogCode;
  level: LogLevel;
  message: string;
  action: FailureAction;
  retryAfterMs?: number;
  status?: number;
}

type ErrnoLike = Error & { code?: unknown };

const TLS_UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "INVALID_CA",
]);
const TLS_EXPIRED = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);

function detailsText(details: unknown): string {
  if (details === undefined || details === null) return "";
  try {
    const s = typeof details === "string" ? details : JSON.stringify(details);
    return s.length > 300 ? s.slice(0, 300) + "..." : s;
  } catch {
    return "";
  }
}

function withServerWords(advice: string, err: ProtocolError, whose = "server"): string {
  const said = err.serverMessage
    ? ` (${whose}: ${err.serverMessage}${detailsText(err.details) ? ` ${detailsText(err.details)}` : ""})`
    : "";
  return advice + said;
}

/** Transport failures by Node's error codes, all retried: the log code, its level, where to look. */
type NetworkErrorRow = [code: LogCode, level: LogLevel, advice: (where: string, code: string, server: URL) => string];

const NETWORK_ERRORS = new Map<string, NetworkErrorRow>(
  (
    [
      [
        ["ECONNREFUSED"],
        "NET_CONNREFUSED",
        "warn",
        (where) => `connection refused by ${where}: is the server running, and is the port right (agent port default 8443)?`,
      ],
      [
        ["ETIMEDOUT", "ESOCKETTIMEDOUT"],
        "NET_TIMEOUT",
        "warn",
        (where) =>
          `no answer from ${where} in time: check firewalls and proxies between this cluster and the control plane, and the server's health`,
      ],
      [
        ["ENOTFOUND", "EAI_AGAIN"],
        "NET_NOTFOUND",
        "error",
        (_, code, server) =>
          `cannot resolve "${server.hostname}" (${code}): check the host name in --server and this machine's DNS`,
      ],
      [
        ["ECONNRESET", "EPIPE"],
        "NET_RESET",
        "warn",
        (where, code) =>
          `the connection to ${where} was closed mid-request (${code}): if this repeats, the server may be overloaded or may not accept this agent's client certificate`,
      ],
      [
        ["EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"],
        "NET_UNREACHABLE",
        "error",
        (where, code) => `${where} is unreachable (${code}): check routes and egress rules from this cluster`,
      ],
    ] satisfies [string[], ...NetworkErrorRow][]
  ).flatMap(([codes, ...row]) => codes.map((c) => [c, row] as [string, NetworkErrorRow])),
);

/** Turns any error from a request into one actionable log line and a decision. */
export function describeFailure(err: unknown, phase: Phase, server: URL): Failure {
  const where = `${server.hostname}:${server.port || "443"}`;
  if (err instanceof ProtocolError) return describeProtocolError(err, phase, where);
  if (err instanceof BadResponseError) {
    return {
      code: "BAD_RESPONSE",
      level: "error",
      action: "retry",
      message: `the server's ${phase} answer is not usable: ${err.message}`,
    };
  }
  const e = err as ErrnoLike;
  if (e?.name === "AbortError")
    return {
      code: "AGENT_STOPPED",
      level: "info",
      action: "stopped",
      message: "request aborted: stopping",
    };
  const code = typeof e?.code === "string" ? e.code : "";
  const detail = errorText(err);

  if (TLS_UNTRUSTED.has(code)) {
    return {
      code: "TLS_UNTRUSTED",
      level: "error",
      action: "retry",
      message: `the server certificate at ${where} is not issued by the trusted fleet CA (${code}): the pinned CA does not match this server; check --ca-file / --ca-fingerprint against the console's agent settings`,
    };
  }
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return {
      code: "TLS_HOSTNAME_MISMATCH",
      level: "error",
      action: "retry",
      message: `the server certificate is not valid for "${server.hostname}" (${detail}): the pinned CA does not match this server, or --server must use a host name the certificate names`,
    };
  }
  if (TLS_EXPIRED.has(code)) {
    return {
      code: "TLS_CERT_EXPIRED",
      level: "error",
      action: "retry",
      message: `the server certificate at ${where} is expired or not yet valid (${code}): check this machine's clock and the server's certificate`,
    };
  }
  if (code.startsWith("ERR_SSL_") || code === "EPROTO" || /before secure TLS connection|handshake/i.test(detail)) {
    const hint = /wrong.version.number|http request/i.test(code + detail)
      ? "is --server the HTTPS agent port (default 8443) and not the console's HTTP port?"
      : "is --server the agent port, and does the server accept this agent's TLS settings?";
    return {
      code: "TLS_HANDSHAKE",
      level: "error",
      action: "retry",
      message: `TLS handshake with ${where} failed (${code || detail}): ${hint}`,
    };
  }
  const net = NETWORK_ERRORS.get(code);
  if (net) return { code: net[0], level: net[1], action: "retry", message: net[2](where, code, server) };
  return {
    code: "NET_ERROR",
    level: "error",
    action: "retry",
    message: `request to ${where} failed: ${code ? code + " " : ""}${detail}`,
  };
}

/** How the agent treats a protocol error code (docs/protocol.md); codes not listed go by their HTTP status. */
interface ProtocolErrorRow {
  code: LogCode;
  level: LogLevel;
  /** `reject-registration`: refused for good when registering, retried on any other request. */
  action: FailureAction | "reject-registration";
  /**
   * What to do, for the log line. Absent: a registration refusal whose advice is the console's
   * (lib/domain/registration-errors.ts), so the agent's log and the attempts log say the same.
   */
  advice?: (err: ProtocolError, phase: Phase) => string;
  /** The server's Retry-After is the wait. */
  retryAfter?: true;
  /** Whose words the answer's `message` carries, when not the server's own (an operator's reason). */
  messageFrom?: string;
}

function waitWords(err: ProtocolError, otherwise: string): string {
  return err.retryAfterMs !== undefined ? `waiting ${Math.round(err.retryAfterMs / 1000)}s as Retry-After asks` : otherwise;
}

const PROTOCOL_ERRORS: Readonly<Record<string, ProtocolErrorRow>> = {
  token_missing: { code: "TOKEN_MISSING", level: "error", action: "reject" },
  token_invalid: { code: "TOKEN_INVALID", level: "error", action: "reject" },
  token_expired: { code: "TOKEN_EXPIRED", level: "error", action: "reject" },
  token_revoked: { code: "TOKEN_REVOKED", level: "error", action: "reject" },
  token_exhausted: {
    code: "TOKEN_EXHAUSTED",
    level: "error",
    action: "reject",
  },
  label_not_allowed: {
    code: "LABEL_NOT_ALLOWED",
    level: "error",
    action: "reject",
  },
  missing_required_labels: {
    code: "MISSING_REQUIRED_LABELS",
    level: "error",
    action: "reject",
  },
  cluster_conflict: {
    code: "CLUSTER_CONFLICT",
    level: "error",
    action: "reject",
  },
  // Decided by an operator (docs/protocol.md, Approval): asking again cannot change the answer.
  registration_denied: {
    code: "REGISTRATION_DENIED",
    level: "error",
    action: "reject",
    messageFrom: "the operator's reason",
  },
  registration_request_expired: {
    code: "REGISTRATION_REQUEST_EXPIRED",
    level: "error",
    action: "reject",
  },
  invalid_request: {
    code: "INVALID_REQUEST",
    level: "error",
    action: "reject-registration",
    advice: (_, phase) => `the server rejected the ${phase} request body: check --name, --labels and the version flags`,
  },
  invalid_csr: {
    code: "INVALID_CSR",
    level: "error",
    action: "reject-registration",
  },
  payload_too_large: {
    code: "PAYLOAD_TOO_LARGE",
    level: "error",
    action: "reject-registration",
    advice: (_, phase) => `the ${phase} request body is over the server's limit (64 KiB): use fewer labels or node pools`,
  },
  rate_limited: {
    code: "RATE_LIMITED",
    level: "warn",
    action: "retry",
    retryAfter: true,
    advice: (err, phase) => `the server is rate limiting ${phase} requests: ${waitWords(err, "waiting before retrying")}`,
  },
  overloaded: {
    code: "OVERLOADED",
    level: "warn",
    action: "retry",
    retryAfter: true,
    advice: (err, phase) =>
      `the server is busy and deferred this ${phase} request: ${waitWords(err, "retrying later")}, with jitter, on the same connection`,
  },
  database_unavailable: {
    code: "DATABASE_UNAVAILABLE",
    level: "warn",
    action: "retry",
    retryAfter: true,
    advice: (err) =>
      `the server cannot reach its database: ${waitWords(err, "retrying later")}, with jitter, on the same connection`,
  },
  client_certificate_required: {
    code: "CLIENT_CERTIFICATE_REQUIRED",
    level: "error",
    action: "reregister",
    advice: () =>
      "the server did not accept this agent's client certificate (none sent, or not from this fleet's CA): re-register by writing a new token to --token-file (the agent picks it up), or delete the state dir if it belongs to another fleet",
  },
  certificate_revoked: {
    code: "CERTIFICATE_REVOKED",
    level: "error",
    action: "reregister",
    advice: () =>
      "this agent's client certificate was revoked (the cluster re-registered elsewhere, or an operator revoked it): write a new token to --token-file to re-register",
  },
  // Asking again cannot help: the other agent's heartbeats keep the newer Lease on record.
  stale_lease_holder: {
    code: "STALE_LEASE_HOLDER",
    level: "error",
    action: "stepDown",
    advice: () =>
      "another agent of this cluster took over the agent's Lease since this one last renewed it: stopping, so that only one agent acts for the cluster (the restarted pod waits for the Lease)",
  },
  cluster_deregistered: {
    code: "CLUSTER_DEREGISTERED",
    level: "warn",
    action: "deregistered",
    advice: () => "the cluster was deregistered from the fleet: stopping and deleting local state",
  },
};

function describeProtocolError(err: ProtocolError, phase: Phase, where: string): Failure {
  const base = { status: err.status };
  const row = Object.prototype.hasOwnProperty.call(PROTOCOL_ERRORS, err.code) ? PROTOCOL_ERRORS[err.code] : undefined;
  const advice = row && (row.advice?.(err, phase) ?? agentAdvice(err.code));
  if (row && advice) {
    return {
      ...base,
      code: row.code,
      level: row.level,
      action: row.action === "reject-registration" ? (phase === "register" ? "reject" : "retry") : row.action,
      ...(row.retryAfter ? { retryAfterMs: err.retryAfterMs } : {}),
      message: withServerWords(advice, err, row.messageFrom),
    };
  }
  if (err.status >= 500) {
    return {
      ...base,
      code: "SERVER_ERROR",
      level: "warn",
      action: "retry",
      retryAfterMs: err.retryAfterMs,
      message: withServerWords(
        `the server at ${where} failed with HTTP ${err.status} (${err.code}): retrying; check the server's logs if it persists`,
        err,
      ),
    };
  }
  return {
    ...base,
    code: "UNEXPECTED_RESPONSE",
    level: "error",
    action: "retry",
    message: withServerWords(
      `unexpected HTTP ${err.status} (${err.code}) from ${where} during ${phase}: is --server the fleet's agent endpoint (https://host:8443)?`,
      err,
    ),
  };
}
