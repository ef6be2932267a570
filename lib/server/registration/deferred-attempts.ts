import "server-only";
import { digestsEqual, parseCredential, sha256Hex } from "@/lib/server/auth/secrets";
import { db } from "@/lib/server/db/client";
import { columns, list, queryRows, sql } from "@/lib/server/db/sql";
import { log } from "@/lib/server/log";
import { processSingleton } from "@/lib/server/process-singletons";
import { TOKEN_PREFIX } from "@/lib/server/tokens/mint-token";
import { storableText } from "@/lib/domain/storable-text";
import { COUNTED_ROWS_PER_MINUTE, minuteStart } from "@/lib/domain/refusal-budget";

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

/** A refusal past its source's budget (lib/domain/refusal-budget.ts), counted rather than itemised. */
export type CountedRefusal = {
  result: string;
  sourceAddress: string | null;
  tokenId: string | null;
  message: string | null;
  at?: Date;
};

/** One row of counted refusals: a (minute, source, token, result) and how many since the last write. */
type Counted = {
  minute: number;
  sourceAddress: string | null;
  tokenId: string | null;
  result: string;
  message: string | null;
  n: number;
};

/**
 * The attempts whose write is put off, on their way to the attempts log, in one batch every
 * FLUSH_INTERVAL_MS:
 * - registrations refused for load (`record`). A refusal happens exactly when the server has no
 *   room to spare, so it costs the refused request an array push only (its token's secret hashed,
 *   nothing awaited); the batch is one multi-row insert, after one query that checks the named
 *   tokens (a row is attributed to a token only when its secret matches). At most MAX_ITEMISED
 *   rows per interval plus one row counting the rest.
 * - refusals past their source's budget (`count`): one row per (source, token, result) per
 *   minute, whose count grows at each write (an insert the first time, then an update), so a
 *   flood from one address costs one statement every interval. At most COUNTED_ROWS_PER_MINUTE
 *   such rows a minute; past it a refusal is counted in its result's row without source or token.
 * Up to one interval of attempts is lost if the process stops in between; the
 * fleet_registration_attempts_total counter still has them.
 */
export class DeferredAttempts {
  private pending: Deferred[] = [];
  private beyond = 0;
  private counted = new Map<string, Counted>();
  /** Rows of counted refusals written this minute (by key), which later writes add to. */
  private countedRows = new Map<string, number>();
  private countedMinute = -1;
  private countedKeys = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly intervalMs = FLUSH_INTERVAL_MS) {}

  /** Notes one refusal for load; the write happens later, off the refused request's path. */
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
    this.schedule();
  }

  /** Counts one refusal in its source's row of the minute; the write happens later. */
  count(r: CountedRefusal): void {
    const minute = minuteStart((r.at ?? new Date()).getTime());
    if (minute !== this.countedMinute) {
      this.countedMinute = minute;
      this.countedKeys = 0;
    }
    let row = { sourceAddress: text(r.sourceAddress, 64), tokenId: text(r.tokenId, 64) };
    let key = JSON.stringify([minute, row.sourceAddress, row.tokenId, r.result]);
    const known = this.counted.has(key) || this.countedRows.has(key);
    if (!known && this.countedKeys >= COUNTED_ROWS_PER_MINUTE) {
      row = { sourceAddress: null, tokenId: null };
      key = JSON.stringify([minute, null, null, r.result]);
    } else if (!known) this.countedKeys++;
    const entry = this.counted.get(key);
    if (entry) entry.n++;
    else this.counted.set(key, { minute, ...row, result: r.result, message: text(r.message, 300), n: 1 });
    this.schedule();
  }

  private schedule() {
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
    const counted = this.counted;
    this.pending = [];
    this.beyond = 0;
    this.counted = new Map();
    this.flushing = this.flushing.then(async () => {
      await write(batch, beyond).catch((err) =>
        log.error("could not record deferred registration attempts", { count: batch.length + beyond, error: String(err) }),
      );
      await this.writeCounted(counted).catch((err) =>
        log.error("could not record counted registration refusals", { rows: counted.size, error: String(err) }),
      );
    });
    return this.flushing;
  }

  private async writeCounted(counted: Map<string, Counted>): Promise<void> {
    // Rows of past minutes get no more counts.
    for (const key of this.countedRows.keys()) {
      if ((JSON.parse(key) as [number])[0] < this.countedMinute) this.countedRows.delete(key);
    }
    for (const [key, c] of counted) {
      const id = this.countedRows.get(key);
      // The row may have been pruned since (the table's size cap): then a new one is written.
      if (id !== undefined) {
        const { count } = await db().registrationAttempt.updateMany({ where: { id }, data: { count: { increment: c.n } } });
        if (count) continue;
      }
      const row = await db().registrationAttempt.create({
        data: {
          at: new Date(c.minute),
          result: c.result,
          sourceAddress: c.sourceAddress,
          tokenId: c.tokenId,
          message: c.message,
          count: c.n,
        },
        select: { id: true },
      });
      if (c.minute >= this.countedMinute) this.countedRows.set(key, row.id);
    }
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
    count: 1,
  }));
  if (beyond)
    rows.push({
      at: new Date(),
      result: OVERLOADED,
      sourceAddress: null,
      tokenId: null,
      clusterName: null,
      message: `${beyond} more registration(s) deferred in the same ${FLUSH_INTERVAL_MS / 1000} s, not itemised.`,
      count: beyond,
    });
  await db().registrationAttempt.createMany({ data: rows });
}

/** The process's deferred-attempt log (the registration endpoint's and recordAttempt's). */
export function deferredAttempts(): DeferredAttempts {
  return processSingleton("deferred-registration-attempts", () => new DeferredAttempts());
}
