// Small pure formatters shared by the console's pages (unit-tested in tests/unit/client-format.test.ts).

/** A length of time for "NotReady for 12 min": coarse enough to read at a glance, exact enough to compare. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
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

/** A date and time in the viewer's locale, without seconds. */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

/** "1.5 TiB"-style memory from GiB; null stays an em dash. */
export function formatMemory(gib: number | null): string {
  if (gib === null) return "—";
  return gib >= 1024 ? `${Math.round((gib / 1024) * 10) / 10} TiB` : `${Math.round(gib * 10) / 10} GiB`;
}

/** A hex serial or fingerprint shortened for a table cell; the full value goes in a title. */
export function shortHex(value: string, keep = 12): string {
  const [prefix, hex] = value.includes(":")
    ? [value.slice(0, value.indexOf(":") + 1), value.slice(value.indexOf(":") + 1)]
    : ["", value];
  return hex.length <= keep ? value : `${prefix}${hex.slice(0, keep)}…`;
}
