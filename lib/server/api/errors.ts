import "server-only";
import { reasonText } from "@/lib/domain/error-text";
import { classifyDatabaseError, RETRY_AFTER_SECONDS, type DatabaseFault } from "@/lib/server/db/database-errors";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";

// Every error code the APIs answer with, and its HTTP status (docs/protocol.md). One table, so a
// code always means the same status wherever it is thrown.
const STATUS = {
  invalid_request: 400,
  invalid_csr: 400,
  immutable_field: 400,
  /** A destructive bulk action over "all matching" with no filter at all: the whole fleet. */
  filter_required: 400,
  /** A guarded bulk action (the whole fleet, or production clusters) whose typed sentence is not the one asked for. */
  confirmation_mismatch: 400,
  unauthenticated: 401,
  token_missing: 401,
  token_invalid: 401,
  token_expired: 401,
  token_revoked: 401,
  token_exhausted: 401,
  client_certificate_required: 401,
  forbidden: 403,
  csrf_rejected: 403,
  /** A bulk action over the whole fleet or production clusters, asked by an operator: it needs an admin. */
  admin_required: 403,
  /** A route only a person signed in to the console may call (lib/contracts: `session`), called with an API key. */
  session_required: 403,
  label_not_allowed: 403,
  /** A change by someone acting through a team to a label a team's scope reads (it would move the cluster between scopes). */
  scope_label_locked: 403,
  certificate_revoked: 403,
  /** An operator denied the registration request; the message carries their reason. */
  registration_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  cluster_conflict: 409,
  invalid_transition: 409,
  /** A registration request decided (or expired) before this decision. */
  request_not_pending: 409,
  /** A decision by cluster name while several requests wait for that name; details list them (decide by request id). */
  ambiguous_request: 409,
  /** A single sign-on user's role while a role mapping is configured: set by the IdP's claims at each sign-in. */
  role_managed_by_sso: 409,
  /** Deleting a team that still has members without naming it in `confirm`; removing or demoting its last admin. */
  team_confirmation_required: 409,
  last_team_admin: 409,
  /** A set-password link for someone who signs in through single sign-on (they need no password). */
  password_not_needed: 409,
  /** A bulk action whose confirmed count is not the selection's count now; details carry the current count. */
  count_changed: 409,
  /** A heartbeat from an agent whose Lease another agent of the same cluster took over since (lib/domain/lease-holder.ts). */
  stale_lease_holder: 409,
  /** Approving a rollout's next stage while an upgraded cluster of the finished stage is not Ready on the target. */
  canaries_not_ready: 409,
  /** Retiring a node pool of a cluster that is not Ready: its agent would not carry the drain out. */
  cluster_not_ready: 409,
  /** Retiring a cluster's last active node pool. */
  last_node_pool: 409,
  cluster_deregistered: 410,
  /** A registration request that waited longer than REGISTRATION_REQUEST_TTL_DAYS for a decision. */
  registration_request_expired: 410,
  /** A set-password link that is unknown, used, replaced by a newer one or expired (one code: nothing to learn from it). */
  password_link_invalid: 410,
  agent_port_required: 421,
  /** A request under a Host name this server is not known by (metrics: DNS rebinding). */
  host_not_served: 421,
  payload_too_large: 413,
  unsupported_media_type: 415,
  missing_required_labels: 422,
  incompatible_agent: 422,
  /** A webhook URL whose host resolves to an address webhooks may not reach (SSRF). */
  target_not_allowed: 422,
  /** A team's token whose fixed labels do not put its clusters in the team's scope. */
  outside_team_scope: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  /** Admission control (docs/protocol.md, "Overload and outages"): heartbeats first, the rest waits Retry-After. */
  overloaded: 503,
  /** The database cannot be reached or answers nothing in time; sent with Retry-After. */
  database_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof STATUS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export function errorBody(code: ErrorCode, message: string, details?: unknown) {
  return details === undefined ? { error: code, message } : { error: code, message, details };
}

// Requests refused for load or an outage rather than for what they asked: every reply passes
// through errorReply, on both ports, so they are counted here once, by code.
const SHED = new Set<ErrorCode>(["overloaded", "database_unavailable", "rate_limited", "unavailable"]);
const SHED_REQUESTS = "fleet_requests_shed_total";
const SHED_HELP = "Requests answered 503 (overloaded, database_unavailable, unavailable) or 429 (rate_limited), by reason.";
// Every reason from zero, so rate() and alerts see the first refusal.
for (const reason of SHED) incCounter(SHED_REQUESTS, SHED_HELP, { reason }, 0);

/** Status, JSON body and headers for any thrown value. */
export function errorReply(err: unknown): {
  status: number;
  body: ReturnType<typeof errorBody>;
  headers?: Record<string, string>;
} {
  const known = knownError(err);
  if (known instanceof ApiError) {
    if (SHED.has(known.code)) incCounter(SHED_REQUESTS, SHED_HELP, { reason: known.code });
    return { status: known.status, body: errorBody(known.code, known.message, known.details), headers: known.headers };
  }
  // Unknown errors carry internals (SQL, stack traces): log them (through the log, which keeps
  // request header values out), answer generically.
  log.error("unhandled error", { error: err });
  return { status: 500, body: errorBody("internal", "Something went wrong on the server; it has been logged.") };
}

const FAULT_MESSAGES: Record<DatabaseFault, string> = {
  database_unavailable: "The database cannot be reached right now; retry after the time in Retry-After.",
  overloaded: "The server is too busy to answer this now; retry after the time in Retry-After.",
};

// An outage fails every request the same way: one log line per fault and interval, with a count,
// instead of thousands of identical ones.
const FAULT_LOG_MS = 5_000;
const faultLog = new Map<DatabaseFault, { at: number; suppressed: number }>();

/**
 * The 503 for a database fault (database-errors.ts), with Retry-After. The driver's message is
 * logged, never sent: it can name hosts and statements.
 */
export function databaseFaultError(fault: DatabaseFault, cause?: unknown): ApiError {
  const seconds = RETRY_AFTER_SECONDS[fault];
  const last = faultLog.get(fault);
  const now = Date.now();
  if (!last || now - last.at >= FAULT_LOG_MS) {
    const why = reasonText(cause).replace(/\s+/g, " ").trim().slice(0, 300);
    const more = last?.suppressed ? ` (+${last.suppressed} more since the last line)` : "";
    console.warn(`database fault answered 503 ${fault}: ${why}${more}`);
    faultLog.set(fault, { at: now, suppressed: 0 });
  } else last.suppressed++;
  return new ApiError(fault, FAULT_MESSAGES[fault], { retryAfterSeconds: seconds }, { "retry-after": String(seconds) });
}

/**
 * The thrown value as the APIs will answer it: a database fault becomes its 503 ApiError (for
 * callers that record the code before replying); anything else is returned as it is.
 */
export function knownError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  const fault = classifyDatabaseError(err);
  return fault ? databaseFaultError(fault, err) : err;
}

export function errorResponse(err: unknown): Response {
  const r = errorReply(err);
  return Response.json(r.body, { status: r.status, headers: r.headers });
}
