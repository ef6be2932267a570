import "server-only";
import { dialect } from "@/lib/server/db/client";
import { asPrismaOperation, type RawStatement } from "@/lib/server/db/raw-batch";

// Multi-row writes as single raw statements. Prisma compiles every operation of a batch on the
// event loop (its query compiler, ~0.2 ms an operation, more with relations), so a few hundred
// single-row updates held heartbeats up for 50-300 ms. Parameters are bound the way Prisma binds
// them (dates included), so rows read back exactly as Prisma would have written them. Only
// identifiers from the callers' constants are written into the text; every value is bound.

/** A column of a VALUES list: its name and its PostgreSQL type (VALUES needs the types there). */
export type ValuesColumn = readonly [name: string, postgresType: string];

/** `rows` rows of placeholders for `types`: `?` on SQLite, `$i::type` on PostgreSQL. */
export function valuesList(rows: number, types: readonly string[]): string {
  const postgres = dialect() === "postgres";
  let n = 0;
  const row = () => `(${types.map((t) => (postgres ? `$${++n}::${t}` : "?")).join(", ")})`;
  return Array.from({ length: rows }, row).join(", ");
}

/** How a statement names a column of the VALUES list `v` (SQLite calls them column1, column2, ...). */
export function valuesColumnRef(columns: readonly ValuesColumn[], name: string): string {
  if (dialect() === "postgres") return `v."${name}"`;
  const at = columns.findIndex(([c]) => c === name);
  if (at < 0) throw new Error(`no column ${name} in the VALUES list`);
  return `v.column${at + 1}`;
}

/** The VALUES list's alias: `v("a", "b")` on PostgreSQL, plain `v` on SQLite (which names them itself). */
export function valuesAlias(columns: readonly ValuesColumn[]): string {
  return dialect() === "postgres" ? `v(${columns.map(([c]) => `"${c}"`).join(", ")})` : "v";
}

/**
 * `UPDATE "table" SET <set> FROM (VALUES ...) AS v WHERE "table"."id" = v.id`, one statement per
 * `rowsPerStatement` rows. `rows` hold a value per column, the id first, and must be sorted by
 * id: on PostgreSQL each statement is preceded by a `SELECT ... ORDER BY "id" FOR UPDATE`, so two
 * batches writing the same rows (the heartbeat writer, the enrollment evaluator, another
 * instance) wait for each other instead of deadlocking. Rows whose id no longer exists are
 * skipped. Returns the statements as Prisma operations, to run in one `$transaction([...])` with
 * others; updateFromValuesStatements gives them as text for runRawBatch.
 */
export function updateFromValues(...args: Parameters<typeof updateFromValuesStatements>) {
  return updateFromValuesStatements(...args).map(asPrismaOperation);
}

export function updateFromValuesStatements(
  table: string,
  columns: readonly ValuesColumn[],
  rows: readonly (readonly unknown[])[],
  set: (ref: (name: string) => string) => string,
  rowsPerStatement: number,
) {
  if (columns[0]?.[0] !== "id") throw new Error("the first column of updateFromValues is the id");
  const postgres = dialect() === "postgres";
  const ref = (name: string) => valuesColumnRef(columns, name);
  const statements: RawStatement[] = [];
  for (let i = 0; i < rows.length; i += rowsPerStatement) {
    const chunk = rows.slice(i, i + rowsPerStatement);
    if (postgres)
      statements.push({
        sql: `SELECT "id" FROM "${table}" WHERE "id" IN (${chunk.map((_, k) => `$${k + 1}`).join(", ")}) ORDER BY "id" FOR UPDATE`,
        args: chunk.map((r) => r[0]),
        returnsRows: true,
      });
    statements.push({
      sql: `UPDATE "${table}" SET ${set(ref)} FROM (VALUES ${valuesList(
        chunk.length,
        columns.map(([, t]) => t),
      )}) AS ${valuesAlias(columns)} WHERE "${table}"."id" = ${ref("id")}`,
      args: chunk.flat(),
    });
  }
  return statements;
}
