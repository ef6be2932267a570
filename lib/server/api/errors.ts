import "server-only";

// Every error code the APIs answer with, and its HTTP status (PROTOCOL.md). One table, so a
// code always means the same status wherever it is thrown.
const STATUS = {
  invalid_request: 400,
  invalid_csr: 400,
  immutable_field: 400,
  unauthenticated: 401,
  token_missing: 401,
  token_invalid: 401,
  token_expired: 401,
  token_revoked: 401,
  token_exhausted: 401,
  client_certificate_required: 401,
  forbidden: 403,
  csrf_rejected: 403,
  label_not_allowed: 403,
  certificate_revoked: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  cluster_conflict: 409,
  invalid_transition: 409,
  cluster_deregistered: 410,
  agent_port_required: 421,
  payload_too_large: 413,
  unsupported_media_type: 415,
  missing_required_labels: 422,
  incompatible_agent: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  /** Admission control (PROTOCOL.md "Overload"): heartbeats first, the rest waits Retry-After. */
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

/** Status, JSON body and headers for any thrown value. */
export function errorReply(err: unknown): {
  status: number;
  body: ReturnType<typeof errorBody>;
  headers?: Record<string, string>;
} {
  if (err instanceof ApiError)
    return { status: err.status, body: errorBody(err.code, err.message, err.details), headers: err.headers };
  // Unknown errors carry internals (SQL, stack traces): log them, answer generically.
  console.error("unhandled error:", err);
  return { status: 500, body: errorBody("internal", "Something went wrong on the server; it has been logged.") };
}

export function errorResponse(err: unknown): Response {
  const r = errorReply(err);
  return Response.json(r.body, { status: r.status, headers: r.headers });
}
