// Small pure formatters shared by the console's pages (unit-tested in tests/unit/client/format.test.ts).
// Time has one home, lib/domain/time-format.ts (the server's checklist sentences use it too); the
// console shows instants through <RelativeTime> and <LocalTime>, never by formatting a Date itself.
export { daysUntil, formatAgo, formatCountdown, formatDuration } from "@/lib/domain/time-format";

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
