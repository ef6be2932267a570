// Which refused registrations get a row of their own in the attempts log and which are counted
// together: the rule, apart from the database (lib/server/registration/registration-attempts.ts
// applies it). A refusal is cheap to cause (a fake token costs its sender one request), so a row
// per refusal let one address write the log as fast as it could send. Each source's first few
// refusals a minute keep their own rows (with the cluster name and the server's message); past
// that they become one row per (source, token, result) per minute with a count. The budget is per
// source and token, the token counting only when its secret matched (an unknown or fake token
// counts as none): an agent with a real token keeps its rows beside a flood from the same address
// (a shared NAT), while a flood of made-up tokens shares one budget.

/** Refusals a minute from one source address (and token) that keep a row each. */
export const ITEMISED_PER_SOURCE = 20;
/** Refusals a minute, all sources together, that keep a row each (many addresses, one flood). */
export const ITEMISED_PER_MINUTE = 200;
/** Sources (and tokens) tracked per minute; past it every refusal is counted (the tracking itself is bounded). */
export const TRACKED_SOURCES = 10_000;
/** Counted rows a minute; past it a refusal is counted without its source and token. */
export const COUNTED_ROWS_PER_MINUTE = 500;
export const MINUTE_MS = 60_000;

/** Results that never write a row: a 429 is the cheap answer to a flood and stays cheap. */
export const UNRECORDED_RESULTS: ReadonlySet<string> = new Set(["rate_limited"]);

export type RefusalEntry = "itemise" | "count";

export function minuteStart(ms: number): number {
  return Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}

/** The itemised budget of the current minute, per source and in all (state in memory, per instance). */
export class RefusalBudget {
  private minute = -1;
  private bySource = new Map<string, number>();
  private itemised = 0;

  /** `tokenId`: the token whose secret matched, or null. */
  take(source: string | null, tokenId: string | null, now: number): RefusalEntry {
    const minute = minuteStart(now);
    if (minute !== this.minute) {
      this.minute = minute;
      this.bySource.clear();
      this.itemised = 0;
    }
    const key = JSON.stringify([source, tokenId]);
    const seen = this.bySource.get(key);
    if (seen === undefined && this.bySource.size >= TRACKED_SOURCES) return "count";
    const n = (seen ?? 0) + 1;
    this.bySource.set(key, n);
    if (n > ITEMISED_PER_SOURCE || this.itemised >= ITEMISED_PER_MINUTE) return "count";
    this.itemised++;
    return "itemise";
  }
}
