// How many bytes of a request body each family of routes reads, at most: one table. The custom
// server enforces it before a request reaches Next or the agent protocol's dispatcher
// (lib/server/net/body-limit.ts), so no route, authenticated or not, buffers more than its row
// allows; the JSON readers behind it (lib/server/api/read-body.ts) use the same numbers.

const KiB = 1024;

/** The agent protocol's bodies (docs/protocol.md: "at most 64 KiB") and the admin API's JSON. */
export const JSON_BODY_BYTES = 64 * KiB;

export type BodyLimit = { prefix: string; bytes: number; why: string };

/** Most specific prefix first; the last row (`/`) is everything else. */
export const BODY_LIMITS: readonly BodyLimit[] = [
  { prefix: "/api/agent/", bytes: JSON_BODY_BYTES, why: "the agent protocol's bodies (docs/protocol.md)" },
  { prefix: "/api/auth/", bytes: JSON_BODY_BYTES, why: "sign-in and sign-out forms: an address, a password, a CSRF token" },
  { prefix: "/api/", bytes: JSON_BODY_BYTES, why: "the admin API's JSON bodies" },
  { prefix: "/", bytes: JSON_BODY_BYTES, why: "console pages, which take no body (the console has no server actions)" },
];

/**
 * The limit for a request target (path and query as received). Matched on the path in lower case
 * with repeated slashes and backslashes collapsed; whatever a spelling matches, every row is
 * bounded, so no spelling reads an unbounded body.
 */
export function bodyLimitFor(target: string): number {
  const path = `/${target.split(/[?#]/, 1)[0] ?? ""}`.replace(/[\\/]+/g, "/").toLowerCase();
  return (BODY_LIMITS.find((row) => path.startsWith(row.prefix)) ?? BODY_LIMITS[BODY_LIMITS.length - 1]!).bytes;
}

/** Whether a Content-Length header declares more than `limit` bytes (an unparseable one counts as too many). */
export function declaresMoreThan(contentLength: string | string[] | null | undefined, limit: number): boolean {
  if (contentLength == null) return false;
  const value = Array.isArray(contentLength) ? contentLength[0] : contentLength;
  if (value === undefined || value.trim() === "") return false;
  const bytes = Number(value);
  return !Number.isFinite(bytes) || bytes > limit;
}
