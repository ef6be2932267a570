// Retry timing. Full jitter (a uniformly random wait up to the exponential bound) spreads a
// fleet of agents that failed together, e.g. when the server restarts, instead of having them
// all retry in lockstep.

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 60_000 };

/** Wait before retry number `attempt` (0 for the first retry): uniform in [0, min(cap, base * 2^attempt)]. */
export function backoffDelay(attempt: number, random: () => number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.floor(random() * exp);
}

/** The policy with its ceiling lowered to `capMs` (never raised). */
export function cappedAt(policy: BackoffPolicy, capMs: number): BackoffPolicy {
  return { ...policy, capMs: Math.max(policy.baseMs, Math.min(policy.capMs, capMs)) };
}

/** The upper bound backoffDelay may return for `attempt`. */
export function backoffCeiling(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  return Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
}

/**
 * The wait before a retry the server timed with Retry-After (429, 503 overloaded or
 * database_unavailable): never earlier than Retry-After, then full jitter over a window at least
 * as long as Retry-After itself (longer when the backoff has grown). Agents refused together in
 * one storm come back spread over [R, 2R], not all within the first second after R.
 */
export function retryAfterDelay(
  retryAfterMs: number,
  attempt: number,
  random: () => number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): number {
  return retryAfterMs + Math.floor(random() * Math.max(retryAfterMs, backoffCeiling(attempt, policy)));
}

/** The heartbeat interval with ±spread jitter, so agents started together drift apart. */
export function jitteredInterval(seconds: number, random: () => number, spread = 0.1): number {
  return Math.round(seconds * 1000 * (1 - spread + 2 * spread * random()));
}

// A misbehaving server must not park the agent for days.
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const trimmed = v.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - nowMs), MAX_RETRY_AFTER_MS);
}
