import "server-only";
import { lockSeconds, retryAfterSeconds, THROTTLE_RULES, throttleKey, type ThrottleKind } from "@/lib/domain/login-throttle";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";

// Counters live in the LoginThrottle table, so every instance sees the same failures and locks
// (the rules are in lib/domain/login-throttle.ts).

export type SignInAttempt = { email: string | null; address: string };
export type Lock = { kind: ThrottleKind; retryAfterSeconds: number };

function keysOf(attempt: SignInAttempt): { kind: ThrottleKind; key: string }[] {
  return [
    ...(attempt.email ? [{ kind: "account" as const, key: throttleKey("account", attempt.email) }] : []),
    { kind: "address" as const, key: throttleKey("address", attempt.address) },
  ];
}

/** The longest lock covering this attempt's account or address, or null. */
export async function activeLock(attempt: SignInAttempt): Promise<Lock | null> {
  const now = Date.now();
  const keys = keysOf(attempt);
  const rows = await db().loginThrottle.findMany({
    where: { key: { in: keys.map((k) => k.key) }, lockedUntil: { gt: new Date(now) } },
  });
  let lock: Lock | null = null;
  for (const row of rows) {
    const seconds = retryAfterSeconds(row.lockedUntil!, now);
    if (!lock || seconds > lock.retryAfterSeconds) {
      lock = { kind: row.key.startsWith("account:") ? "account" : "address", retryAfterSeconds: seconds };
    }
  }
  return lock;
}

// Password checks in progress on this instance. Counting happens after a check, so without this
// a burst of parallel guesses would all be checked before the first lock; one check per account
// at a time (and a few per address) keeps the threshold meaningful. Other instances add theirs.
const MAX_IN_FLIGHT: Record<ThrottleKind, number> = { account: 1, address: 4 };
const inFlight = new Map<string, number>();

/** Reserves a password check for this attempt, or null when too many are already running. */
export function beginAttempt(attempt: SignInAttempt): (() => void) | null {
  const keys = keysOf(attempt);
  if (keys.some((k) => (inFlight.get(k.key) ?? 0) >= MAX_IN_FLIGHT[k.kind])) return null;
  for (const k of keys) inFlight.set(k.key, (inFlight.get(k.key) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const k of keys) {
      const left = (inFlight.get(k.key) ?? 1) - 1;
      if (left > 0) inFlight.set(k.key, left);
      else inFlight.delete(k.key);
    }
  };
}

/** Counts one failure on `key` and returns the consecutive failures now on record. */
async function countFailure(kind: ThrottleKind, key: string, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - THROTTLE_RULES[kind].forgetAfterMs);
  await db().loginThrottle.updateMany({
    where: { key, lastFailureAt: { lt: cutoff } },
    data: { failures: 0, lockedUntil: null },
  });
  const increment = () =>
    db().loginThrottle.updateMany({ where: { key }, data: { failures: { increment: 1 }, lastFailureAt: now } });
  if ((await increment()).count === 0) {
    await db()
      .loginThrottle.create({ data: { key, failures: 1, lastFailureAt: now } })
      .catch(async (err: unknown) => {
        // Another instance created the row first: count on it.
        if ((await increment()).count === 0) throw err;
      });
  }
  const row = await db().loginThrottle.findUnique({ where: { key }, select: { failures: true } });
  return row?.failures ?? 1;
}

/**
 * A sign-in failed (wrong password, unknown or disabled account): count it for the account and
 * the address, lock what crossed its threshold, and audit both (never the password).
 */
export async function recordSignInFailure(
  attempt: SignInAttempt & { userId: string | null; reason: "wrong_password" | "unknown_account" | "disabled" | "invalid_input" },
): Promise<void> {
  const now = new Date();
  const actor: Actor = { type: "user", id: attempt.userId, label: attempt.email ?? "(no email)" };
  const target = attempt.userId ? { type: "user", id: attempt.userId } : null;
  await recordAudit(db(), actor, "auth.signin_failed", target, {
    email: attempt.email,
    address: attempt.address,
    reason: attempt.reason,
  });
  for (const { kind, key } of keysOf(attempt)) {
    const failures = await countFailure(kind, key, now);
    const seconds = lockSeconds(kind, failures);
    if (seconds === 0) continue;
    await db().loginThrottle.update({ where: { key }, data: { lockedUntil: new Date(now.getTime() + seconds * 1000) } });
    await recordAudit(db(), actor, "auth.signin_locked", target, {
      [kind]: kind === "account" ? attempt.email : attempt.address,
      failures,
      lockSeconds: seconds,
    });
  }
}

/** A successful sign-in clears its account's failures (not its address's: see the rules). */
export async function clearAccountFailures(email: string): Promise<void> {
  await db().loginThrottle.deleteMany({ where: { key: throttleKey("account", email) } });
}

/** Forgets counters past their window (background job; the rule applies on write anyway). */
export async function pruneLoginThrottles(now = Date.now()): Promise<void> {
  for (const kind of ["account", "address"] as const) {
    await db().loginThrottle.deleteMany({
      where: { key: { startsWith: `${kind}:` }, lastFailureAt: { lt: new Date(now - THROTTLE_RULES[kind].forgetAfterMs) } },
    });
  }
}
