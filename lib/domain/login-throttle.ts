// Sign-in throttling rules (pure; lib/server/auth/login-throttle.ts keeps the counters).
//
// Failed sign-ins are counted per account and per client address. From the `threshold`-th
// consecutive failure on, each further failure locks the key for 2^n seconds (n = failures past
// the threshold, plus one), at most 15 minutes: for an account 2 s, 4 s, 8 s ... 900 s. While a
// key is locked every sign-in it covers is refused with 429 and Retry-After, even with the right
// password, and the refused attempt is not counted (no password was checked). An account's
// counter resets on a successful sign-in; an address's does not (anyone behind the same address
// could reset it with their own account). A counter is forgotten after `forgetAfterMs` without a
// failure.

export type ThrottleKind = "account" | "address";

export const THROTTLE_RULES: Record<ThrottleKind, { threshold: number; forgetAfterMs: number }> = {
  // One person mistyping: five tries before the first short lock.
  account: { threshold: 5, forgetAfterMs: 24 * 60 * 60_000 },
  // Many people may share an address (NAT, office proxy): more tries, forgotten sooner.
  address: { threshold: 20, forgetAfterMs: 60 * 60_000 },
};

export const MAX_LOCK_SECONDS = 15 * 60;

/** How long `failures` consecutive failures lock a key, in seconds (0: not locked). */
export function lockSeconds(kind: ThrottleKind, failures: number): number {
  const past = failures - THROTTLE_RULES[kind].threshold;
  if (past < 0) return 0;
  return Math.min(2 ** Math.min(past + 1, 30), MAX_LOCK_SECONDS);
}

/** The LoginThrottle row key: "account:<email>" or "address:<ip>". */
export function throttleKey(kind: ThrottleKind, value: string): string {
  return `${kind}:${value.trim().toLowerCase().slice(0, 300)}`;
}

/** Whole seconds until `lockedUntil`, at least 1 while it is in the future. */
export function retryAfterSeconds(lockedUntil: Date, now: number): number {
  return Math.max(1, Math.ceil((lockedUntil.getTime() - now) / 1000));
}

/** The sign-in form's message for a 429. */
export function tooManyAttemptsMessage(seconds: number): string {
  return `Too many attempts; try again in ${seconds} second${seconds === 1 ? "" : "s"}.`;
}
