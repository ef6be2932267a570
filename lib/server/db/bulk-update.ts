import "server-only";
import { dialect } from "@/lib/server/db/client";
import { columns, list, raw, sql, valuesList, type Column, type ModelName, type Sql } from "@/lib/server/db/sql";

// Multi-row writes as single raw statements. Prisma compiles every operation of a batch on the
// event loop (its query compiler, more with relations), so a few hundred single-row updates held
// heartbeats up for long. Parameters are bound the way Prisma binds them (dates included), so rows
// read back exactly as Prisma would have written them.

/**
 * A column of a VALUES list: its name and its PostgreSQL type (VALUES needs the types there).
 * Declare a list `satisfies readonly ValuesColumn<Column<"Model">>[]` so its names are the model's.
 */
export type ValuesColumn<N extends string = string> = readonly [name: N, postgresType: string];

/** How a statement names a column of the VALUES list `v` (SQLite calls them column1, column2, ...). */
export function valuesColumnRef(columns: readonly ValuesColumn[], name: string): Sql {
  if (dialect() === "postgres") return raw(`v."${name}"`);
  const at = columns.findIndex(([c]) => c === name);
  if (at < 0) throw new Error(`no column ${name} in the VALUES list`);
  return raw(`v.column${at + 1}`);
}

/** `(VALUES ...) AS v("a", "b")` on PostgreSQL, `... AS v` on SQLite (which names them itself). */
export function valuesTable(columns: readonly ValuesColumn[], rows: readonly (readonly unknown[])[]): Sql {
  const alias = dialect() === "postgres" ? raw(`v(${columns.map(([c]) => `"${c}"`).join(", ")})`) : raw("v");
  return sql`(VALUES ${valuesList(
    rows,
    columns.map(([, t]) => t),
  )}) AS ${alias}`;
}

/** A statement of updateFromValuesStatements, and whether it returns rows (the lock's SELECT does). */
export type BulkStatement = { q: Sql; returnsRows: boolean };

/** The models with an `id` column (the rows updateFromValuesStatements addresses). */
type ModelWithId = { [K in ModelName]: "id" extends Column<K> ? K : never }[ModelName];

/**
 * `UPDATE "table" SET <set> FROM (VALUES ...) AS v WHERE "table"."id" = v.id`, one statement per
 * `rowsPerStatement` rows. `rows` hold a value per column, the id first, and must be sorted by
 * id: on PostgreSQL each statement is preceded by a `SELECT ... ORDER BY "id" FOR NO KEY UPDATE`, so
 * two batches writing the same rows (the heartbeat writer, the enrollment evaluator, another
 * instance) wait for each other instead of deadlocking. NO KEY: the lock an UPDATE of these
 * columns takes anyway, which lets a row's foreign-key checks (a heartbeat count inserted for the
 * cluster takes FOR KEY SHARE, in its own order) through; FOR UPDATE made them deadlock with the
 * batches. Rows whose id no longer exists are skipped. The statements run in one transaction:
 * runOnDriver's, or Prisma's `$transaction([...])` through asPrismaOperation.
 */
export function updateFromValuesStatements<M extends ModelWithId, N extends string>(
  model: M,
  values: readonly ValuesColumn<N>[],
  rows: readonly (readonly unknown[])[],
  set: (ref: (name: N) => Sql) => Sql,
  rowsPerStatement: number,
  /** a condition a row must also meet to be updated (the others are left as they are) */
  onlyWhere?: (ref: (name: N) => Sql) => Sql,
): BulkStatement[] {
  if (values[0]?.[0] !== "id") throw new Error("the first column of updateFromValuesStatements is the id");
  const ref = (name: N | "id") => valuesColumnRef(values, name);
  const target = columns(model);
  const id = target("id" as Column<M>);
  const statements: BulkStatement[] = [];
  for (let i = 0; i < rows.length; i += rowsPerStatement) {
    const chunk = rows.slice(i, i + rowsPerStatement);
    if (dialect() === "postgres")
      statements.push({
        q: sql`SELECT ${id} FROM ${target.table} WHERE ${id} IN (${list(chunk.map((r) => r[0]))}) ORDER BY ${id} FOR NO KEY UPDATE`,
        returnsRows: true,
      });
    statements.push({
      q: sql`UPDATE ${target.table} SET ${set(ref)} FROM ${valuesTable(values, chunk)} WHERE ${target.qualified("id" as Column<M>)} = ${ref("id")}${onlyWhere ? sql` AND (${onlyWhere(ref)})` : sql``}`,
      returnsRows: false,
    });
  }
  return statements;
}
