import "server-only";
import {
  ACCOUNT_SLOWDOWN,
  accountDelayMs,
  lockSeconds,
  pairAddress,
  retryAfterSeconds,
  THROTTLE_RULES,
  throttleKeys,
  type ThrottleKind,
} from "@/lib/domain/login-throttle";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";

// Counters live in the LoginThrottle table, so every instance sees the same failures, locks and
// slowdowns (the rules are in lib/domain/login-throttle.ts).

export type SignInAttempt = { email: string | null; address: string };
export type Lock = { kind: ThrottleKind; retryAfterSeconds: number };

type Counter = { kind: ThrottleKind | "account"; key: string; forgetAfterMs: number };

/** The locking counters an attempt falls under: its (account, address) pair and its address. */
function lockingKeys(attempt: SignInAttempt): { kind: ThrottleKind; key: string }[] {
  return [
    ...(attempt.email ? [{ kind: "pair" as const, key: throttleKeys.pair(attempt.email, attempt.address) }] : []),
    { kind: "address" as const, key: throttleKeys.address(attempt.address) },
  ];
}

function countersOf(attempt: SignInAttempt): Counter[] {
  return [
    ...lockingKeys(attempt).map((k) => ({ ...k, forgetAfterMs: THROTTLE_RULES[k.kind].forgetAfterMs })),
    ...(attempt.email
      ? [{ kind: "account" as const, key: throttleKeys.account(attempt.email), forgetAfterMs: ACCOUNT_SLOWDOWN.forgetAfterMs }]
      : []),
  ];
}

/** The longest lock covering this attempt's pair or address, or null. */
export async function activeLock(attempt: SignInAttempt): Promise<Lock | null> {
  const now = Date.now();
  const keys = lockingKeys(attempt);
  const rows = await db().loginThrottle.findMany({
    where: { key: { in: keys.map((k) => k.key) }, lockedUntil: { gt: new Date(now) } },
  });
  let lock: Lock | null = null;
  for (const row of rows) {
    const seconds = retryAfterSeconds(row.lockedUntil!, now);
    if (!lock || seconds > lock.retryAfterSeconds) {
      lock = { kind: row.key.startsWith("pair:") ? "pair" : "address", retryAfterSeconds: seconds };
    }
  }
  return lock;
}

/** How long a sign-in of this account waits before its password is checked (its failures from anywhere). */
export async function accountDelay(email: string | null, now = Date.now()): Promise<number> {
  if (!email) return 0;
  const row = await db().loginThrottle.findUnique({ where: { key: throttleKeys.account(email) } });
  if (!row || row.lastFailureAt.getTime() < now - ACCOUNT_SLOWDOWN.forgetAfterMs) return 0;
  return accountDelayMs(row.failures);
}

// Password checks in progress on this instance. Counting happens after a check, so without this
// a burst of parallel guesses would all be checked before the first lock; one check per pair at a
// time (and a few per address) keeps the threshold meaningful. Never per account: a stream of
// someone else's guesses would then hold the account's owner out. Other instances add theirs.
const MAX_IN_FLIGHT: Record<ThrottleKind, number> = { pair: 1, address: 4 };
const inFlight = new Map<string, number>();

/** Reserves a password check for this attempt, or null when too many are already running. */
export function beginAttempt(attempt: SignInAttempt): (() => void) | null {
  const keys = lockingKeys(attempt);
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
async function countFailure({ key, forgetAfterMs }: Counter, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - forgetAfterMs);
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
 * A sign-in failed (wrong password, unknown or disabled account): count it for the pair, the
 * address and the account, lock the pair or address that crossed its threshold, and audit the
 * failure and each lock (never the password).
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
  for (const counter of countersOf(attempt)) {
    const failures = await countFailure(counter, now);
    if (counter.kind === "account") continue;
    const seconds = lockSeconds(counter.kind, failures);
    if (seconds === 0) continue;
    await db().loginThrottle.update({
      where: { key: counter.key },
      data: { lockedUntil: new Date(now.getTime() + seconds * 1000) },
    });
    await recordAudit(db(), actor, "auth.signin_locked", target, {
      ...(counter.kind === "pair" ? { account: attempt.email } : {}),
      address: attempt.address,
      failures,
      lockSeconds: seconds,
    });
  }
}

/** A successful sign-in clears its pair and its account's slowdown (not its address's count: see the rules). */
export async function clearAccountFailures(email: string, address: string): Promise<void> {
  await db().loginThrottle.deleteMany({
    where: { key: { in: [throttleKeys.account(email), throttleKeys.pair(email, address)] } },
  });
}

/** The addresses each account is locked out from now (pair locks), by email. */
export async function lockedAddressesByAccount(now = new Date()): Promise<Map<string, string[]>> {
  const rows = await db().loginThrottle.findMany({
    where: { key: { startsWith: "pair:" }, lockedUntil: { gt: now } },
    select: { key: true },
  });
  const byEmail = new Map<string, string[]>();
  for (const { key } of rows) {
    const email = key.slice("pair:".length, key.indexOf(" "));
    byEmail.set(email, [...(byEmail.get(email) ?? []), pairAddress(key)]);
  }
  return byEmail;
}

/**
 * An admin lets a user sign in again from everywhere: their account's pair counters and locks and
 * their slowdown are forgotten (address locks stay: they hold an address, not this account).
 */
export async function clearSignInLocks(actor: Actor, userId: string): Promise<{ cleared: string[] }> {
  return db().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
    if (!user) throw new ApiError("not_found", "No such user.");
    const pairs = await tx.loginThrottle.findMany({
      where: { key: { startsWith: throttleKeys.pairsOf(user.email) }, lockedUntil: { gt: new Date() } },
      select: { key: true },
    });
    await tx.loginThrottle.deleteMany({
      where: { OR: [{ key: { startsWith: throttleKeys.pairsOf(user.email) } }, { key: throttleKeys.account(user.email) }] },
    });
    const cleared = pairs.map((p) => pairAddress(p.key));
    await recordAudit(
      tx,
      actor,
      "auth.signin_unlocked",
      { type: "user", id: user.id },
      { email: user.email, addresses: cleared },
    );
    return { cleared };
  });
}

/** Forgets counters past their window (background job; the rule applies on write anyway). */
export async function pruneLoginThrottles(now = Date.now()): Promise<void> {
  const windows: [string, number][] = [
    ["pair:", THROTTLE_RULES.pair.forgetAfterMs],
    ["address:", THROTTLE_RULES.address.forgetAfterMs],
    ["account:", ACCOUNT_SLOWDOWN.forgetAfterMs],
  ];
  for (const [prefix, forgetAfterMs] of windows) {
    await db().loginThrottle.deleteMany({
      where: { key: { startsWith: prefix }, lastFailureAt: { lt: new Date(now - forgetAfterMs) } },
    });
  }
}
