// A database's schema as a sorted list of one-line facts (tables, columns with type, nullability
// and default, indexes with columns and uniqueness, foreign keys and other constraints), so two
// databases can be compared and a difference reads as a sentence. Column order is ignored on
// purpose: a column added by a later migration lands last, which is not drift.
import type { Engine, Row } from "./test-database";

export type SchemaSnapshot = { engine: Engine; tables: string[]; facts: string[] };

type Source = { engine: Engine; query: (sql: string) => Promise<Row[]> };

/** Bookkeeping of the migration applier, not part of the models. */
export const MIGRATIONS_TABLE = "_fleet_migrations";

export async function introspect(source: Source, options: { exclude?: string[] } = {}): Promise<SchemaSnapshot> {
  const exclude = new Set(options.exclude ?? [MIGRATIONS_TABLE]);
  const facts = source.engine === "sqlite" ? await sqliteFacts(source.query) : await postgresFacts(source.query);
  const kept = facts.filter((f) => !exclude.has(f.table)).map((f) => f.fact);
  const tables = facts.filter((f) => f.kind === "table" && !exclude.has(f.table)).map((f) => f.table);
  return { engine: source.engine, tables: tables.sort(), facts: [...new Set(kept)].sort() };
}

/** Human-readable differences, empty when the schemas are the same. */
export function diffSnapshots(
  actual: SchemaSnapshot,
  expected: SchemaSnapshot,
  names = { actual: "actual", expected: "expected" },
) {
  const a = new Set(actual.facts);
  const e = new Set(expected.facts);
  return [
    ...expected.facts.filter((f) => !a.has(f)).map((f) => `only in ${names.expected}: ${f}`),
    ...actual.facts.filter((f) => !e.has(f)).map((f) => `only in ${names.actual}: ${f}`),
  ];
}

type Fact = { kind: "table" | "column" | "index" | "constraint" | "type"; table: string; fact: string };

const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;

async function sqliteFacts(query: Source["query"]): Promise<Fact[]> {
  const facts: Fact[] = [];
  const tables = await query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`);
  for (const { name } of tables as { name: string }[]) {
    facts.push({ kind: "table", table: name, fact: `table ${name}` });
    const columns = (await query(`SELECT * FROM pragma_table_info(${lit(name)})`)) as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    for (const c of columns) {
      const parts = [c.type.toUpperCase() || "(no type)", c.notnull ? "NOT NULL" : "NULL", `DEFAULT ${c.dflt_value ?? "none"}`];
      if (c.pk) parts.push(`PRIMARY KEY #${c.pk}`);
      facts.push({ kind: "column", table: name, fact: `column ${name}.${c.name}: ${parts.join(" ")}` });
    }
    const indexes = (await query(`SELECT * FROM pragma_index_list(${lit(name)})`)) as {
      name: string;
      unique: number;
      origin: string;
      partial: number;
    }[];
    for (const i of indexes) {
      const cols = (await query(`SELECT * FROM pragma_index_xinfo(${lit(i.name)}) WHERE key = 1 ORDER BY seqno`)) as {
        name: string | null;
        desc: number;
        coll: string;
      }[];
      const list = cols.map(
        (c) => `${c.name ?? "<expression>"}${c.desc ? " DESC" : ""}${c.coll !== "BINARY" ? ` COLLATE ${c.coll}` : ""}`,
      );
      const flags = [i.unique ? "UNIQUE" : "NON-UNIQUE", `origin=${i.origin}`, i.partial ? "PARTIAL" : ""].filter(Boolean);
      facts.push({ kind: "index", table: name, fact: `index ${i.name} ON ${name} (${list.join(", ")}) ${flags.join(" ")}` });
    }
    const fks = (await query(`SELECT * FROM pragma_foreign_key_list(${lit(name)}) ORDER BY id, seq`)) as {
      id: number;
      table: string;
      from: string;
      to: string | null;
      on_update: string;
      on_delete: string;
    }[];
    const byId = new Map<number, typeof fks>();
    for (const fk of fks) byId.set(fk.id, [...(byId.get(fk.id) ?? []), fk]);
    for (const group of byId.values()) {
      const first = group[0]!;
      facts.push({
        kind: "constraint",
        table: name,
        fact:
          `foreign key ${name} (${group.map((g) => g.from).join(", ")}) -> ${first.table} (${group.map((g) => g.to ?? "<pk>").join(", ")})` +
          ` ON DELETE ${first.on_delete} ON UPDATE ${first.on_update}`,
      });
    }
  }
  return facts;
}

async function postgresFacts(query: Source["query"]): Promise<Fact[]> {
  const facts: Fact[] = [];
  const tables = await query(`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`);
  for (const { name } of tables as { name: string }[]) facts.push({ kind: "table", table: name, fact: `table ${name}` });

  const columns = (await query(`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attnotnull AS notnull, pg_get_expr(d.adbin, d.adrelid) AS default,
           a.attidentity AS identity, a.attgenerated AS generated, co.collname AS collation
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0 AND co.collname <> 'default'
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`)) as {
    table: string;
    column: string;
    type: string;
    notnull: boolean;
    default: string | null;
    identity: string;
    generated: string;
    collation: string | null;
  }[];
  for (const c of columns) {
    const parts = [c.type, c.notnull ? "NOT NULL" : "NULL", `DEFAULT ${c.default ?? "none"}`];
    if (c.identity) parts.push(`IDENTITY ${c.identity}`);
    if (c.generated) parts.push(`GENERATED ${c.generated}`);
    if (c.collation) parts.push(`COLLATE ${c.collation}`);
    facts.push({ kind: "column", table: c.table, fact: `column ${c.table}.${c.column}: ${parts.join(" ")}` });
  }

  // pg_get_indexdef names the index, its columns and their order, uniqueness, method and predicate.
  const indexes = (await query(`
    SELECT t.relname AS table, pg_get_indexdef(ix.indexrelid) AS def
    FROM pg_index ix
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public'`)) as { table: string; def: string }[];
  for (const i of indexes) facts.push({ kind: "index", table: i.table, fact: `index ${i.def}` });

  const constraints = (await query(`
    SELECT c.relname AS table, con.conname AS name, pg_get_constraintdef(con.oid) AS def
    FROM pg_constraint con
    JOIN pg_class c ON c.oid = con.conrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public'`)) as { table: string; name: string; def: string }[];
  for (const k of constraints)
    facts.push({ kind: "constraint", table: k.table, fact: `constraint ${k.table}.${k.name}: ${k.def}` });

  const enums = (await query(`
    SELECT t.typname AS name, string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder) AS labels
    FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' GROUP BY t.typname`)) as { name: string; labels: string }[];
  for (const e of enums) facts.push({ kind: "type", table: "", fact: `enum ${e.name} (${e.labels})` });
  return facts;
}
