import "server-only";

// Rows read on the driver (readOnDriver) carry the driver's types: PostgreSQL gives Date and
// boolean for these typed columns, SQLite its stored text and 0 or 1. A string, a number or a
// bigint is turned into the same value rather than trusted.

export function asDate(v: unknown): Date | null {
  return v === null || v === undefined
    ? null
    : v instanceof Date
      ? v
      : new Date(typeof v === "bigint" ? Number(v) : (v as string));
}

export function asBool(v: unknown): boolean | null {
  return v === null || v === undefined ? null : typeof v === "boolean" ? v : Number(v) !== 0;
}
