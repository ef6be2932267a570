// The change gate's tolerance (GET /api/v1/gate, `fleetctl gate`): how many matching clusters may
// be unready and still pass, and which long-NotReady clusters leave the target set altogether.
// Pure, shared by the API's query schema, the gate and the CLI, so a flag the CLI accepts is one
// the server accepts, worded the same.

/** Why a tolerance value is refused: the `rule` in a 400's details. */
export type ToleranceRule = "max_unready_invalid" | "max_unready_negative" | "max_unready_percentage" | "duration_invalid";

export class ToleranceError extends Error {
  constructor(
    readonly rule: ToleranceRule,
    message: string,
  ) {
    super(message);
  }
}

/** `maxUnready`: a count of clusters, or a percentage of the target set (rounded down). */
export type MaxUnready = { kind: "count"; count: number; text: string } | { kind: "percent"; percent: number; text: string };

export function parseMaxUnready(text: string): MaxUnready {
  const t = text.trim();
  if (/^-\s*\d/.test(t))
    throw new ToleranceError("max_unready_negative", `"${text}" is negative; use a count of 0 or more, or a percentage`);
  const percent = /^(\d{1,3}(?:\.\d{1,2})?)%$/.exec(t);
  if (percent) {
    const p = Number(percent[1]);
    if (p > 100) throw new ToleranceError("max_unready_percentage", `"${text}" is more than 100%`);
    return { kind: "percent", percent: p, text: t };
  }
  if (t.endsWith("%")) throw new ToleranceError("max_unready_percentage", `"${text}" is not a percentage like 10% or 12.5%`);
  if (!/^\d{1,6}$/.test(t)) throw new ToleranceError("max_unready_invalid", `"${text}" is not a count (3) or a percentage (10%)`);
  return { kind: "count", count: Number(t), text: t };
}

/** How many of `total` clusters may be unready: a percentage is rounded down, never up. */
export function allowedUnready(max: MaxUnready | undefined, total: number): number {
  if (!max) return 0;
  if (max.kind === "count") return max.count;
  // 10% of 24 is 2.4: two clusters, never three. In hundredths of a percent, so the product is an
  // exact integer (7% of 100 is 7, where 0.07 * 100 in floating point is 7.000000000000001).
  return Math.floor((Math.round(max.percent * 100) * total) / 10_000);
}

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
const MAX_DURATION_SECONDS = 366 * 86_400;

/** A duration like 30m, 2h, 1h30m, 7d or 90s, in seconds (at least 1s, at most a year). */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (t.startsWith("-")) throw new ToleranceError("duration_invalid", `"${text}" is negative; use a duration like 30m, 2h or 1d`);
  if (!/^(\d{1,6}[smhd])+$/.test(t))
    throw new ToleranceError("duration_invalid", `"${text}" is not a duration like 30m, 2h, 1h30m or 1d`);
  let seconds = 0;
  for (const [, n, unit] of t.matchAll(/(\d+)([smhd])/g)) seconds += Number(n) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS];
  if (seconds < 1) throw new ToleranceError("duration_invalid", `"${text}" is zero; use at least 1s`);
  if (seconds > MAX_DURATION_SECONDS) throw new ToleranceError("duration_invalid", `"${text}" is longer than a year`);
  return seconds;
}

/** Seconds as the shortest exact text: 1800 -> "30m", 5400 -> "1h30m". */
export function formatDuration(seconds: number): string {
  let rest = Math.floor(seconds);
  let out = "";
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || "0s";
}

/**
 * When a cluster whose live status is NotReady became NotReady: a silent agent at its last
 * heartbeat plus the threshold (exact); otherwise (its API server reported down) when the status
 * sweeper recorded NotReady, or now if it has not yet.
 */
export function notReadySince(
  f: { lastHeartbeatAt: Date | null; status?: string | null; statusChangedAt?: Date | null },
  now: Date,
  thresholdSeconds: number,
): Date {
  if (f.lastHeartbeatAt && now.getTime() - f.lastHeartbeatAt.getTime() > thresholdSeconds * 1000)
    return new Date(f.lastHeartbeatAt.getTime() + thresholdSeconds * 1000);
  if (f.status === "NotReady" && f.statusChangedAt) return f.statusChangedAt;
  return now;
}

export type GateVerdictInput = {
  /** clusters judged (the ignored ones already left out) and how many of them fail */
  total: number;
  unready: number;
  /** the ignored clusters' names, in order */
  ignored: readonly string[];
  maxUnready?: MaxUnready;
  ignoreNotReadySeconds?: number;
  /** "group staging" or `selector "env=prod"` */
  what: string;
};

/** How many ignored clusters the verdict's sentence names; the list in the answer has them all. */
const IGNORED_NAMED = 10;

/** The verdict and its sentences: pass only with something to deploy to and no more unready than allowed. */
export function gateVerdict(v: GateVerdictInput) {
  const allowed = allowedUnready(v.maxUnready, v.total);
  const pass = v.total > 0 && v.unready <= allowed;
  const tolerance = v.maxUnready
    ? `${v.unready} of ${v.total} not ready (tolerated: up to ${allowed}${v.maxUnready.kind === "percent" ? `, ${v.maxUnready.text}` : ""})`
    : `${v.unready} of ${v.total} not ready (tolerated: none)`;
  const shown = v.ignored.slice(0, IGNORED_NAMED);
  const more = v.ignored.length - shown.length;
  const ignoredText =
    v.ignoreNotReadySeconds !== undefined
      ? `ignored ${v.ignored.length} NotReady for more than ${formatDuration(v.ignoreNotReadySeconds)}` +
        (shown.length ? `: ${shown.join(", ")}${more ? ` and ${more} more` : ""}` : "")
      : null;
  let summary: string;
  if (v.total === 0)
    summary = v.ignored.length
      ? `Every cluster matching ${v.what} was ignored (NotReady for too long): nothing to deploy to.`
      : `No cluster matches ${v.what}: nothing to deploy to.`;
  else if (v.unready === 0) summary = `All ${v.total} cluster(s) matching ${v.what} are registered, Active, Ready and enrolled.`;
  else if (pass)
    summary = `${v.unready} of ${v.total} cluster(s) matching ${v.what} are not ready, within the tolerance of ${allowed}.`;
  else summary = `${v.unready} of ${v.total} cluster(s) matching ${v.what} are not ready for a deployment.`;
  return { pass, allowed, summary, tolerance, ignoredText };
}
