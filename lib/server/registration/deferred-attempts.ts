import "server-only";
import { digestsEqual, parseCredential, sha256Hex } from "@/lib/server/auth/secrets";
import { db } from "@/lib/server/db/client";
import { columns, list, queryRows, sql } from "@/lib/server/db/sql";
import { log } from "@/lib/server/log";
import { processSingleton } from "@/lib/server/process-singletons";
import { TOKEN_PREFIX } from "@/lib/server/tokens/mint-token";
import { storableText } from "@/lib/domain/storable-text";

/** The attempt-log result of a registration answered 503 `overloaded` ("deferred (overloaded)"). */
export const OVERLOADED = "overloaded";

/** How often the refusals gathered since the last write are written, in one insert. */
export const FLUSH_INTERVAL_MS = 2_000;
/** Refusals itemised per interval; past it, one row stands for the rest and says how many. */
export const MAX_ITEMISED = 500;

type Deferred = {
  at: Date;
  sourceAddress: string | null;
  clusterName: string | null;
  /** the token the request named, and its secret's digest: checked at the flush, never trusted */
  claimedTokenId: string | null;
  secretDigest: string | null;
};

const tokens = columns("RegistrationToken");
const text = (value: string | null, max: number) => (value == null ? null : storableText(value, max));

/**
 * The registrations refused for load, on their way to the attempts log. A refusal happens exactly
 * when the server has no room to spare, so it costs the refused request an array push only (its
 * token's secret hashed, nothing awaited); a timer writes what gathered in one multi-row insert
 * every FLUSH_INTERVAL_MS, after one query that checks the named tokens (a row is attributed to a
 * token only when its secret matches). Bounded: at most MAX_ITEMISED rows per interval plus one
 * row saying how many more were deferred, so a flood costs two statements every two seconds.
 * Up to one interval of refusals is lost if the process stops in between; the
 * fleet_registration_attempts_total counter still has them.
 */
export class DeferredAttempts {
  private pending: Deferred[] = [];
  private beyond = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly intervalMs = FLUSH_INTERVAL_MS) {}

  /** Notes one refusal; the write happens later, off the refused request's path. */
  record(r: { sourceAddress: string | null; clusterName: string | null; bearer: string | null; at?: Date }): void {
    if (this.pending.length >= MAX_ITEMISED) this.beyond++;
    else {
      const cred = r.bearer ? parseCredential(r.bearer, TOKEN_PREFIX) : null;
      this.pending.push({
        at: r.at ?? new Date(),
        sourceAddress: r.sourceAddress,
        clusterName: r.clusterName,
        claimedTokenId: cred?.id ?? null,
        secretDigest: cred ? sha256Hex(cred.secret) : null,
      });
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes what has gathered (tests, and the timer). One flush at a time, in order. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    const beyond = this.beyond;
    this.pending = [];
    this.beyond = 0;
    this.flushing = this.flushing.then(() =>
      write(batch, beyond).catch((err) =>
        log.error("could not record deferred registration attempts", { count: batch.length + beyond, error: String(err) }),
      ),
    );
    return this.flushing;
  }
}

async function write(batch: Deferred[], beyond: number): Promise<void> {
  if (!batch.length && !beyond) return;
  const claimed = [...new Set(batch.flatMap((d) => (d.claimedTokenId ? [d.claimedTokenId] : [])))];
  const known = claimed.length
    ? new Map(
        (
          await queryRows<{ id: string; secretHash: string }>(
            sql`SELECT ${tokens.list("id", "secretHash")} FROM ${tokens.table} WHERE ${tokens("id")} IN (${list(claimed)})`,
          )
        ).map((t) => [t.id, t.secretHash]),
      )
    : new Map<string, string>();
  const verified = (d: Deferred) => {
    const hash = d.claimedTokenId ? known.get(d.claimedTokenId) : undefined;
    return hash && d.secretDigest && digestsEqual(d.secretDigest, hash) ? d.claimedTokenId : null;
  };
  const message = "Deferred: the control plane was busy and asked the agent to retry after a delay.";
  const rows = batch.map((d) => ({
    at: d.at,
    result: OVERLOADED,
    sourceAddress: text(d.sourceAddress, 64),
    tokenId: verified(d),
    clusterName: text(d.clusterName, 63),
    message,
  }));
  if (beyond)
    rows.push({
      at: new Date(),
      result: OVERLOADED,
      sourceAddress: null,
      tokenId: null,
      clusterName: null,
      message: `${beyond} more registration(s) deferred in the same ${FLUSH_INTERVAL_MS / 1000} s, not itemised.`,
    });
  await db().registrationAttempt.createMany({ data: rows });
}

/** The process's deferred-attempt log (the registration endpoint's). */
export function deferredAttempts(): DeferredAttempts {
  return processSingleton("deferred-registration-attempts", () => new DeferredAttempts());
}
