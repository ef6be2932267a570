// One way to show time, for the console and for the server's own sentences (the enrollment
// checklist's reasons): durations in one formatter ("16 min", "1 h 4 min"), relative times built
// on it ("16 min ago", "in 3 h 5 min"), and absolute times in one format, "2026-12-01 08:14:03
// Europe/Berlin", always in a named zone. Exports and the API carry ISO 8601 instead.
// Pure (the zone is an argument), so it is unit-tested in tests/unit/domain/time-format.test.ts; the
// console's components (components/ui/relative-time.tsx, local-time.tsx) pass the viewer's zone.

/**
 * A length of time for "NotReady for 12 min", "took 3 min 12 s", "timeout 1 min 30 s": coarse
 * enough to read at a glance, exact enough to compare. Seconds are kept under ten minutes, where
 * they still matter (short waits and timeouts, step durations).
 */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** "16 min ago" for a time `ms` in the past. */
export function formatAgo(ms: number): string {
  return `${formatDuration(ms)} ago`;
}

/** "in 3 h 5 min" for a time `ms` ahead; "expired" once it has passed. */
export function formatIn(ms: number): string {
  return ms <= 0 ? "expired" : `in ${formatDuration(ms)}`;
}

/** "16 min ago" or "in 3 min": `at` relative to `now`, either side. */
export function formatRelative(at: number, now: number): string {
  return at > now ? formatIn(at - now) : formatAgo(now - at);
}

/** "1 min 05 s", "42 s": a countdown that does not change width every second. */
export function formatCountdown(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${String(seconds % 60).padStart(2, "0")} s`;
}

/** Whole days from `now` until `iso` (negative once past), for "expires in 12 days". */
export function daysUntil(iso: string, now: number): number {
  return Math.floor((Date.parse(iso) - now) / 86_400_000);
}

/** The viewer's IANA time zone ("Europe/Berlin"), "UTC" where the runtime has none. */
export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** "UTC" for the zone's many spellings, else the IANA name as given. */
export function zoneName(timeZone: string): string {
  return /^(Etc\/)?(UTC|GMT|UCT|Zulu|Universal)$/i.test(timeZone) ? "UTC" : timeZone;
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
function partsIn(at: number, timeZone: string) {
  let f = partsFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    partsFormatters.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, minute: `${p.hour}:${p.minute}`, second: p.second ?? "00" };
}

/** Which part of the one absolute format to show: everything, the date, the clock, or hh:mm. */
export type InstantPart = "datetime" | "date" | "time" | "minute";

/**
 * An instant in the one absolute format: "2026-12-01 08:14:03 UTC" (datetime, with the zone's
 * name), "2026-12-01" (date), "08:14:03" (time), "08:14" (minute: chart axes).
 */
export function formatInstant(at: string | number | Date, timeZone: string, part: InstantPart = "datetime"): string {
  const ms = at instanceof Date ? at.getTime() : typeof at === "string" ? Date.parse(at) : at;
  if (!Number.isFinite(ms)) return "—";
  const p = partsIn(ms, timeZone);
  switch (part) {
    case "date":
      return p.date;
    case "time":
      return `${p.minute}:${p.second}`;
    case "minute":
      return p.minute;
    default:
      return `${p.date} ${p.minute}:${p.second} ${zoneName(timeZone)}`;
  }
}
