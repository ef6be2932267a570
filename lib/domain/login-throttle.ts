// Sign-in throttling rules (pure; lib/server/auth/login-throttle.ts keeps the counters).
//
// Failed sign-ins are counted three ways, and only two of them lock:
// - per account AND client address (`pair`): the person mistyping, or a guesser at one address.
//   From the `threshold`-th consecutive failure on, each further failure locks the pair for 2^n
//   seconds (n = failures past the threshold, plus one), at most 15 minutes.
// - per client address (`address`), across accounts: one address spraying guesses at many
//   accounts. Locks the same way, from a higher threshold (many people may share a NAT).
// - per account (`account`), from every address: never a lock, only a slowdown. Each sign-in of
//   the account waits `accountDelayMs(failures)` before its password is checked (exponential,
//   capped at a few seconds). A lock per account would let anyone hold an account locked with
//   one wrong password now and then; a delay costs its owner seconds at most, from any address
//   nobody failed from, and still slows a guesser spread over many addresses.
// While a pair or an address is locked every sign-in it covers is refused with 429 and
// Retry-After, even with the right password, and the refused attempt is not counted (no password
// was checked). A successful sign-in resets its pair and its account; an address's counter is
// not reset (anyone behind the same address could reset it with their own account). A counter is
// forgotten after `forgetAfterMs` without a failure; an admin can clear an account's pairs.

export type ThrottleKind = "pair" | "address";

export const THROTTLE_RULES: Record<ThrottleKind, { threshold: number; forgetAfterMs: number }> = {
  // One person mistyping: five tries before the first short lock.
  pair: { threshold: 5, forgetAfterMs: 24 * 60 * 60_000 },
  // Many people may share an address (NAT, office proxy): more tries, forgotten sooner.
  address: { threshold: 20, forgetAfterMs: 60 * 60_000 },
};

export const MAX_LOCK_SECONDS = 15 * 60;

/** The per-account slowdown: free failures, then a delay doubling from `firstMs` up to `maxMs`. */
export const ACCOUNT_SLOWDOWN = { freeFailures: 3, firstMs: 250, maxMs: 4_000, forgetAfterMs: 60 * 60_000 };

/** How long `failures` consecutive failures lock a key, in seconds (0: not locked). */
export function lockSeconds(kind: ThrottleKind, failures: number): number {
  const past = failures - THROTTLE_RULES[kind].threshold;
  if (past < 0) return 0;
  return Math.min(2 ** Math.min(past + 1, 30), MAX_LOCK_SECONDS);
}

/** How long a sign-in of an account waits before its password is checked, after `failures` from anywhere. */
export function accountDelayMs(failures: number): number {
  const past = failures - ACCOUNT_SLOWDOWN.freeFailures;
  if (past <= 0) return 0;
  return Math.min(ACCOUNT_SLOWDOWN.firstMs * 2 ** Math.min(past - 1, 30), ACCOUNT_SLOWDOWN.maxMs);
}

const normal = (value: string) => value.trim().toLowerCase().slice(0, 300);

/**
 * The LoginThrottle row keys: "account:<email>", "address:<ip>" and "pair:<email> <ip>" (an email
 * has no whitespace, so the space ends it).
 */
export const throttleKeys = {
  account: (email: string) => `account:${normal(email)}`,
  address: (address: string) => `address:${normal(address)}`,
  pair: (email: string, address: string) => `pair:${normal(email)} ${normal(address)}`,
  /** What every pair key of an account starts with. */
  pairsOf: (email: string) => `pair:${normal(email)} `,
};

/** The address a pair key names. */
export function pairAddress(key: string): string {
  return key.slice(key.indexOf(" ") + 1);
}

/** Whole seconds until `lockedUntil`, at least 1 while it is in the future. */
export function retryAfterSeconds(lockedUntil: Date, now: number): number {
  return Math.max(1, Math.ceil((lockedUntil.getTime() - now) / 1000));
}

/** The sign-in form's message for a 429. */
export function tooManyAttemptsMessage(seconds: number): string {
  return `Too many attempts; try again in ${seconds} second${seconds === 1 ? "" : "s"}.`;
}
