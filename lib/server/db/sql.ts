import "server-only";
import type { QueryConfig } from "pg";
import type { Prisma } from "./generated/sqlite/client";
import { db, dialect, databasePool, sqliteHandle, type Tx } from "./client";

// The one SQL toolkit of the server: hand-written statements for paths where Prisma's models cost
// too much (its query compiler runs on the event loop for every operation, and expresses neither
// INTERSECT over an index nor a multi-row conditional update). A statement is built with the `sql`
// tag, so every value is a bound parameter and only fixed identifiers are written into the text;
// identifiers come from `columns()`, typed by the Prisma models, so a renamed column fails tsc.

type Dialect = ReturnType<typeof dialect>;

/** A bound value; `cast` is the PostgreSQL type it needs where nothing else says (a VALUES list). */
type Param = { value: unknown; cast?: string };

/** SQL text in parts, a bound value between each two. Build it with `sql`, never by hand. */
export class Sql {
  constructor(
    readonly parts: readonly string[],
    readonly params: readonly Param[],
  ) {}

  static join(items: readonly Sql[], separator: string): Sql {
    if (!items.length) return EMPTY;
    const parts: string[] = [""];
    const params: Param[] = [];
    items.forEach((item, i) => {
      parts[parts.length - 1] += (i ? separator : "") + item.parts[0];
      for (let k = 0; k < item.params.length; k++) {
        params.push(item.params[k]!);
        parts.push(item.parts[k + 1]!);
      }
    });
    return new Sql(parts, params);
  }
}

const EMPTY = new Sql([""], []);

/** `sql\`... ${value} ...\``: a nested Sql is spliced in, anything else becomes a bound parameter. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return Sql.join(
    strings.flatMap((s, i) => {
      if (i === values.length) return [raw(s)];
      const v = values[i];
      return [raw(s), v instanceof Sql ? v : bound(v)];
    }),
    "",
  );
}

/** Fixed text (keywords, identifiers from code): never input. */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

/** One bound value, with the PostgreSQL type it is cast to. */
export function bound(value: unknown, cast?: string): Sql {
  return new Sql(["", ""], [cast ? { value, cast } : { value }]);
}

/** `a, b, c` as bound values (for `IN (...)`). */
export function list(values: readonly unknown[]): Sql {
  return Sql.join(
    values.map((v) => bound(v)),
    ", ",
  );
}

/** `(?, ?), (?, ?)`: rows of bound values; PostgreSQL needs each column's type in a VALUES list. */
export function valuesList(rows: readonly (readonly unknown[])[], postgresTypes: readonly string[]): Sql {
  // Built flat: the heartbeat writer binds thousands of values a statement.
  const parts: string[] = [];
  const params: Param[] = [];
  let open = "(";
  for (const row of rows) {
    row.forEach((value, i) => {
      parts.push(i ? ", " : open);
      params.push({ value, cast: postgresTypes[i] });
    });
    open = "), (";
  }
  parts.push(rows.length ? ")" : "");
  return new Sql(parts, params);
}

/** The statement as one dialect spells it: `?` on SQLite, `$n` (cast where asked) on PostgreSQL. */
export function render(q: Sql, to: Dialect = dialect()): string {
  let text = q.parts[0]!;
  q.params.forEach((p, i) => {
    text += to === "postgres" ? `$${i + 1}${p.cast ? `::${p.cast}` : ""}` : "?";
    text += q.parts[i + 1]!;
  });
  return text;
}

// ---- identifiers, typed by the Prisma models

export type ModelName = Prisma.ModelName;
export type Column<M extends ModelName> = keyof Prisma.TypeMap["model"][M]["payload"]["scalars"] & string;

/**
 * A model's table and columns as SQL identifiers: `const c = columns("Cluster", "c")` gives
 * `c.table` (`"Cluster" c`) and `c("phase")` (`c."phase"`); without an alias, bare names.
 */
export function columns<M extends ModelName>(model: M, alias?: string) {
  const column = (name: Column<M>) => raw(alias ? `${alias}."${name}"` : `"${name}"`);
  return Object.assign(column, {
    table: raw(alias ? `"${model}" ${alias}` : `"${model}"`),
    /** `"Model"."a"`: a column named with its table, where a FROM or a conflict brings another of that name. */
    qualified: (name: Column<M>) => raw(`"${model}"."${name}"`),
    /** `"a", "b"`: a column list (an INSERT's, a SELECT's). */
    list: (...names: Column<M>[]) =>
      Sql.join(
        names.map((n) => column(n)),
        ", ",
      ),
  });
}

// ---- runners

/** A transaction's client or the database itself: statements run through Prisma, which binds. */
export type Runner = Pick<Tx, "$queryRawUnsafe" | "$executeRawUnsafe">;

/** The rows a statement returns, through Prisma (in `runner`'s transaction when it is one). */
export function queryRows<T>(q: Sql, runner: Runner = db()): Promise<T[]> {
  return runner.$queryRawUnsafe<T[]>(render(q), ...q.params.map((p) => p.value));
}

/** How many rows a statement changed, through Prisma. */
export function execute(q: Sql, runner: Runner = db()): Promise<number> {
  return runner.$executeRawUnsafe(render(q), ...q.params.map((p) => p.value));
}

/**
 * Where a statement of a transaction runs: Prisma's interactive transaction, or one on the driver
 * (inDriverTransaction). Helpers that only write raw SQL take it, so one helper serves both.
 */
export type SqlTx = {
  rows<T>(q: Sql): Promise<T[]>;
  run(q: Sql): Promise<number>;
  /** The Prisma transaction underneath, for model queries; null on the driver. */
  readonly prisma: Tx | null;
};

/** Prisma's transaction (or the database) as an SqlTx. */
export function viaPrisma(tx: Tx): SqlTx {
  return { rows: (q) => queryRows(q, tx), run: (q) => execute(q, tx), prisma: tx };
}

/** A Prisma transaction or an SqlTx, as an SqlTx. */
export function asSqlTx(tx: Tx | SqlTx): SqlTx {
  return "run" in tx && "rows" in tx ? (tx as SqlTx) : viaPrisma(tx as Tx);
}

/**
 * Runs `work` in one transaction whose statements skip Prisma on PostgreSQL (a pooled connection
 * of the driver: BEGIN, the statements, COMMIT, with no query plan compiled for any of them). On
 * SQLite it is Prisma's transaction: its one connection is shared with Prisma, and work that
 * awaits cannot hold it without Prisma knowing.
 */
export async function inDriverTransaction<T>(work: (tx: SqlTx) => Promise<T>): Promise<T> {
  if (dialect() === "sqlite") return db().$transaction((tx) => work(viaPrisma(tx)));
  const pool = databasePool();
  if (!pool) throw new Error("no PostgreSQL pool");
  const client = await pool.connect();
  let failure: Error | undefined;
  const tx: SqlTx = {
    rows: async <R>(q: Sql) => (await client.query(onPostgres(q))).rows as R[],
    run: async (q) => (await client.query(onPostgres(q))).rowCount ?? 0,
    prisma: null,
  };
  try {
    await client.query("BEGIN");
    const result = await work(tx);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release(failure);
  }
}

/**
 * Rows read on the driver itself, past Prisma: for reads of thousands of rows, where Prisma's
 * result mapping (every value tagged with its type, then decoded again) costs more than the query.
 * Values come as each driver gives them: on SQLite a date is its stored text and a boolean 0 or 1
 * (gate-facts.ts's asDate and asBool read both). On SQLite, while a Prisma transaction is open on
 * its one connection, the read goes through Prisma and waits its turn, as runOnDriver's writes do.
 */
export async function readOnDriver<T>(q: Sql): Promise<T[]> {
  if (dialect() === "sqlite") {
    const handle = sqliteHandle();
    if (!handle || handle.inTransaction) return queryRows<T>(q);
    return handle.prepare(render(q, "sqlite")).all(boundValues(q, "sqlite")) as T[];
  }
  const pool = databasePool();
  if (!pool) throw new Error("no PostgreSQL pool");
  return (await pool.query(onPostgres(q))).rows as T[];
}

/**
 * One statement on the driver itself, on its own (a statement is its own transaction): the rows it
 * changed. For the small conditional writes on a busy path (an agent's first heartbeat), where
 * Prisma would compile a plan for each and wrap it in BEGIN and COMMIT: three round trips, the
 * row locked across them. On SQLite, while a Prisma transaction is open, it waits its turn as
 * readOnDriver's reads do.
 */
export async function writeOnDriver(q: Sql): Promise<number> {
  if (dialect() === "sqlite") {
    const handle = sqliteHandle();
    if (!handle || handle.inTransaction) return execute(q);
    return handle.prepare(render(q, "sqlite")).run(boundValues(q, "sqlite")).changes;
  }
  const pool = databasePool();
  if (!pool) throw new Error("no PostgreSQL pool");
  return (await pool.query(onPostgres(q))).rowCount ?? 0;
}

// The pool reads timestamps as UTC (client.ts), as Prisma wrote them.
function onPostgres(q: Sql): QueryConfig {
  return { text: render(q, "postgres"), values: boundValues(q, "postgres") };
}

/** `INSERT INTO "Model" ("a", "b") VALUES (...), (...)`: every row has the first row's columns. */
export function insertInto<M extends ModelName>(model: M, rows: readonly Partial<Record<Column<M>, unknown>>[]): Sql {
  const m = columns(model);
  const names = Object.keys(rows[0] ?? {}) as Column<M>[];
  return sql`INSERT INTO ${m.table} (${m.list(...names)}) VALUES ${valuesList(
    rows.map((r) => names.map((n) => r[n] ?? null)),
    [],
  )}`;
}

/**
 * PostgreSQL: locks these rows in id order, for a statement about to update several of them. An
 * UPDATE alone may visit them in another order and deadlock with a writer locking some of the
 * same rows (the heartbeat writer, another instance's sweep). NO KEY UPDATE, as in
 * lib/server/db/bulk-update.ts: foreign-key checks on these rows are not waited for. SQLite has one
 * writer: nothing.
 */
export async function lockRowsInIdOrder(tx: SqlTx, model: "Cluster", ids: readonly string[]): Promise<void> {
  if (dialect() !== "postgres" || ids.length < 2) return;
  const m = columns(model);
  await tx.rows(sql`SELECT ${m("id")} FROM ${m.table} WHERE ${m("id")} IN (${list(ids)}) ORDER BY ${m("id")} FOR NO KEY UPDATE`);
}

/** A statement for a `$transaction([...])` that mixes it with model queries. */
export function asPrismaOperation(q: Sql, returnsRows = false) {
  const values = q.params.map((p) => p.value);
  return returnsRows ? db().$queryRawUnsafe(render(q), ...values) : db().$executeRawUnsafe(render(q), ...values);
}

/**
 * Runs `statements` in one transaction on the driver itself (Prisma's own connection on SQLite, a
 * pooled one on PostgreSQL). Prisma's client turns even a raw statement into a plan on the event
 * loop, every parameter serialised for its WebAssembly compiler and mapped back by the adapter:
 * for multi-row writes of thousands of parameters that is most of the cost. Values are bound
 * here exactly as Prisma's adapters bind them, so rows read back the same either way. A lone
 * statement on PostgreSQL goes without BEGIN and COMMIT: it is a transaction of its own.
 */
export async function runOnDriver(statements: readonly Sql[]): Promise<void> {
  if (!statements.length) return;
  if (dialect() === "sqlite") return runOnSqlite(statements);
  if (statements.length === 1) {
    await writeOnDriver(statements[0]!);
    return;
  }
  await inDriverTransaction(async (tx) => {
    for (const s of statements) await tx.run(s);
  });
}

async function runOnSqlite(statements: readonly Sql[]): Promise<void> {
  const handle = sqliteHandle();
  // better-sqlite3 is synchronous and SQLite here is one connection, shared with Prisma. While a
  // Prisma transaction is open on it (between its awaits) a statement would join that transaction,
  // so then, and before Prisma has connected, the batch goes through Prisma and waits its turn.
  // Otherwise the whole batch runs to its COMMIT before anything else can touch the connection.
  if (!handle || handle.inTransaction) {
    await db().$transaction(statements.map((s) => asPrismaOperation(s)));
    return;
  }
  handle.transaction(() => {
    for (const s of statements) handle.prepare(render(s, "sqlite")).run(boundValues(s, "sqlite"));
  })();
}

// ---- binding, as Prisma's adapters bind

/** A statement's values as the driver of `to` takes them. */
export function boundValues(q: Sql, to: Dialect): unknown[] {
  return q.params.map((p) => (to === "postgres" ? bindPostgres(p.value) : bindSqlite(p.value)));
}

// @prisma/adapter-better-sqlite3's mapArg with its default timestampFormat (iso8601).
function bindSqlite(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value ?? null;
}

// @prisma/adapter-pg's formatDateTime: UTC, no zone, milliseconds only when there are some.
function bindPostgres(value: unknown): unknown {
  if (!(value instanceof Date)) return value ?? null;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const ms = value.getUTCMilliseconds();
  return (
    `${pad(value.getUTCFullYear(), 4)}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())} ` +
    `${pad(value.getUTCHours())}:${pad(value.getUTCMinutes())}:${pad(value.getUTCSeconds())}` +
    (ms ? `.${pad(ms, 3)}` : "")
  );
}
