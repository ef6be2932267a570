// The one-door rules of docs/architecture.md ("One door each"), checked: a scan of lib/server
// that fails when one of these writes appears outside its home. Each rule finds Prisma writes
// (the data they set, not their where), raw SQL (UPDATE ... SET, INSERT INTO, insertInto,
// updateFromValuesStatements columns) and ClusterEvent rows, by model and column.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";

type Write = { offset: number; model: string; text: string };
type Rule = {
  name: string;
  /** The files allowed to write it, relative to lib/server. */
  homes: string[];
  /** Where the source writes it. */
  find(src: string): number[];
};

const PRISMA_WRITES = "create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany";
const READ_KEYS = ["where", "select", "include", "orderBy", "omit"];

/** The index just past the bracket that closes the one at `open`. */
function closing(src: string, open: number): number {
  const pairs: Record<string, string> = { "(": ")", "{": "}", "[": "]" };
  const stack: string[] = [];
  for (let i = open; i < src.length; i++) {
    const c = src[i]!;
    if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (!stack.length) return i + 1;
    }
  }
  return src.length;
}

/** The text less each `key: <value>` (the value ends at a comma or brace of its own depth). */
function withoutKey(text: string, key: string): string {
  const pattern = new RegExp(`\\b${key}\\s*:`);
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    let depth = 0;
    let end = m.index + m[0].length;
    for (; end < text.length; end++) {
      const c = text[end]!;
      if ("([{".includes(c)) depth++;
      else if (")]}".includes(c)) {
        if (depth === 0) break;
        depth--;
      } else if (c === "," && depth === 0) break;
    }
    text = text.slice(0, m.index) + text.slice(end);
  }
  return text;
}

/** Is `at` inside the arguments of a Prisma read (count, findMany, ...)? */
function insideRead(src: string, at: number): boolean {
  for (const m of src.matchAll(/\.\w+\.(?:count|find\w*|groupBy|aggregate)\s*\(/g)) {
    const open = m.index + m[0].length - 1;
    if (open < at && at < closing(src, open)) return true;
  }
  return false;
}

/** `client.<model>.<method>(...)` calls, with the text of their arguments less their read-only parts. */
function prismaWrites(src: string, model: string, methods = PRISMA_WRITES): Write[] {
  const out: Write[] = [];
  for (const m of src.matchAll(new RegExp(`\\.${model}\\.(?:${methods})\\s*\\(`, "g"))) {
    const open = m.index + m[0].length - 1;
    let args = src.slice(open, closing(src, open));
    for (const key of READ_KEYS) args = withoutKey(args, key);
    out.push({ offset: m.index, model, text: args });
  }
  return out;
}

/** The models each `columns("Model")` helper of the file names. */
function helpers(src: string): Map<string, string> {
  return new Map([...src.matchAll(/(?:const|let)\s+(\w+)\s*=\s*columns\(\s*"(\w+)"/g)].map((m) => [m[1]!, m[2]!]));
}

const modelOf = (names: Map<string, string>, helper: string | undefined, literal: string | undefined) =>
  helper ? (names.get(helper) ?? helper) : (literal ?? "");

/** Raw SQL writes: UPDATE ... SET (the SET clause), INSERT INTO, DELETE FROM, and insertInto("Model", rows). */
function rawWrites(src: string): (Write & { kind: "set" | "insert" | "delete" })[] {
  const names = helpers(src);
  const out: (Write & { kind: "set" | "insert" | "delete" })[] = [];
  for (const m of src.matchAll(
    /UPDATE\s+(?:\$\{(\w+)\.table\}|"?(\w+)"?)\s+SET\b([\s\S]*?)(?=\bWHERE\b|\bRETURNING\b|\bFROM\b|`)/g,
  )) {
    out.push({ offset: m.index, model: modelOf(names, m[1], m[2]), text: m[3]!, kind: "set" });
  }
  for (const m of src.matchAll(/INSERT\s+INTO\s+(?:\$\{(\w+)\.table\}|"?(\w+)"?)/g)) {
    out.push({ offset: m.index, model: modelOf(names, m[1], m[2]), text: src.slice(m.index, m.index + 400), kind: "insert" });
  }
  for (const m of src.matchAll(/DELETE\s+FROM\s+(?:\$\{(\w+)\.table\}|"?(\w+)"?)/g)) {
    out.push({ offset: m.index, model: modelOf(names, m[1], m[2]), text: "", kind: "delete" });
  }
  for (const m of src.matchAll(/insertInto\(\s*"(\w+)"\s*,/g)) {
    const open = src.lastIndexOf("(", m.index + m[0].length);
    out.push({ offset: m.index, model: m[1]!, text: src.slice(open, closing(src, open)), kind: "insert" });
  }
  return out;
}

/** Does a SET clause or a row's text assign one of these columns? */
const assigns = (text: string, cols: string[]) =>
  new RegExp(`(?:\\("(?:${cols.join("|")})"\\)\\}\\s*=(?!=)|\\b(?:${cols.join("|")})\\s*:)`).test(text);

/** Writes of these columns of `model`, whichever way. */
function columnWrites(src: string, prismaModel: string, model: string, cols: string[]): number[] {
  return [
    ...prismaWrites(src, prismaModel)
      .filter((w) => assigns(w.text, cols))
      .map((w) => w.offset),
    ...rawWrites(src)
      .filter((w) => w.model === model && w.kind !== "delete" && assigns(w.text, cols))
      .map((w) => w.offset),
    // updateFromValuesStatements' columns: ["phase", "text"].
    ...(src.includes(`"${model}"`)
      ? [...src.matchAll(new RegExp(`\\[\\s*"(?:${cols.join("|")})"\\s*,\\s*"[\\w ]+"\\s*\\]`, "g"))].map((m) => m.index)
      : []),
  ];
}

/** Any row written to `model`: Prisma's create/update/delete, or raw SQL. */
function rowWrites(src: string, prismaModel: string, model: string, methods = PRISMA_WRITES): number[] {
  return [
    ...prismaWrites(src, prismaModel, methods).map((w) => w.offset),
    ...rawWrites(src)
      .filter((w) => w.model === model && (methods === PRISMA_WRITES || w.kind === "insert"))
      .map((w) => w.offset),
  ];
}

const RULES: Rule[] = [
  {
    name: "a cluster's lifecycle phase",
    // changePhases; a new cluster's first phase is written with its row, its event by newClusterPhase.
    homes: ["lifecycle/change-phase.ts", "registration/write-new-cluster.ts", "clusters/provision-cluster.ts"],
    find: (src) => columnWrites(src, "cluster", "Cluster", ["phase", "phaseChangedAt"]),
  },
  {
    name: "a cluster's recorded status",
    // recordTransitions; a new cluster starts Pending with its row.
    homes: ["heartbeats/record-transitions.ts", "registration/write-new-cluster.ts"],
    find: (src) => columnWrites(src, "cluster", "Cluster", ["status", "statusChangedAt"]),
  },
  {
    name: "a status transition (ClusterEvent of kind status)",
    homes: ["heartbeats/record-transitions.ts"],
    // A row of that kind, built anywhere in a file that writes events; a read's filter is no row.
    find: (src) =>
      /clusterEvent|ClusterEvent/.test(src)
        ? [...src.matchAll(/\bkind\s*:\s*["']status["']/g)].map((m) => m.index).filter((at) => !insideRead(src, at))
        : [],
  },
  {
    name: "a registration token's use",
    homes: ["tokens/consume-token-use.ts", "tokens/release-token-use.ts", "tokens/lock-token.ts"],
    find: (src) => columnWrites(src, "registrationToken", "RegistrationToken", ["usedClusters"]),
  },
  {
    name: "a certificate revocation",
    homes: ["pki/revoke-certificates.ts"],
    find: (src) => [
      ...rowWrites(src, "revokedCertificate", "RevokedCertificate"),
      ...columnWrites(src, "certificate", "Certificate", ["revokedAt", "revokeReason"]),
    ],
  },
  {
    name: "an audit row",
    homes: ["audit/record-audit.ts"],
    find: (src) => rowWrites(src, "auditLog", "AuditLog", "create|createMany|createManyAndReturn|upsert"),
  },
  {
    name: "a certificate row",
    homes: ["pki/issue-certificate.ts"],
    find: (src) => rowWrites(src, "certificate", "Certificate", "create|createMany|createManyAndReturn|upsert"),
  },
  {
    name: "a registration-attempt row",
    // recordAttempt (refusals within budget), recordAttemptIn and attemptInsert (in the caller's
    // transaction); the batched writer counts refusals past the budget. Retention's pruning is no row.
    homes: ["registration/registration-attempts.ts", "registration/deferred-attempts.ts"],
    find: (src) =>
      rowWrites(
        src,
        "registrationAttempt",
        "RegistrationAttempt",
        "create|createMany|createManyAndReturn|update|updateMany|upsert",
      ),
  },
];

const ROOT = path.join(process.cwd(), "lib/server");

function sources(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : sources(full);
    return /\.(ts|tsx|mts)$/.test(e.name) ? [full] : [];
  });
}

/** Each write outside its home, as "rule: file:line". */
function sideDoors(files: { file: string; src: string }[]): string[] {
  const found: string[] = [];
  for (const { file, src } of files) {
    for (const rule of RULES) {
      if (rule.homes.includes(file)) continue;
      for (const at of new Set(rule.find(src))) {
        found.push(`${rule.name}: lib/server/${file}:${src.slice(0, at).split("\n").length}`);
      }
    }
  }
  return found;
}

describe("one door each", () => {
  test("no write of a phase, a status, a transition, a token use, a revocation, an audit row, a certificate or an attempt row outside its home", () => {
    const files = sources().map((full) => ({
      file: path.relative(ROOT, full).split(path.sep).join("/"),
      src: readFileSync(full, "utf8"),
    }));
    assert.ok(files.length > 100, "the scan reads lib/server");
    assert.deepEqual(sideDoors(files), []);
  });

  test("every home exists, and writes what it is the home of", () => {
    for (const rule of RULES) {
      const written = rule.homes.filter((home) => rule.find(readFileSync(path.join(ROOT, home), "utf8")).length > 0);
      assert.ok(written.length > 0, `${rule.name}: no home writes it (${rule.homes.join(", ")})`);
    }
  });

  // The detectors on the side doors they exist to find, so a change to them that misses one fails here.
  const planted: [rule: string, src: string][] = [
    ["a cluster's lifecycle phase", `await tx.cluster.update({ where: { id }, data: { phase: "Active" } });`],
    [
      "a cluster's lifecycle phase",
      'const c = columns("Cluster");\nsql`UPDATE ${c.table} SET ${c("phase")} = ${to} WHERE ${c("id")} = ${id}`;',
    ],
    ["a cluster's lifecycle phase", 'updateFromValues(tx, "Cluster", [["id", "text"], ["phase", "text"]], rows);'],
    [
      "a cluster's recorded status",
      `await db().cluster.updateMany({ where: { status: "Ready" }, data: { status: "NotReady" } });`,
    ],
    [
      "a status transition (ClusterEvent of kind status)",
      `await tx.clusterEvent.create({ data: { clusterId, kind: "status", toValue: "Ready" } });`,
    ],
    [
      "a registration token's use",
      `await tx.registrationToken.update({ where: { id }, data: { usedClusters: { increment: 1 } } });`,
    ],
    [
      "a registration token's use",
      'const t = columns("RegistrationToken");\nsql`UPDATE ${t.table} SET ${t("usedClusters")} = 0`;',
    ],
    ["a certificate revocation", `await tx.revokedCertificate.createMany({ data: rows });`],
    ["a certificate revocation", `await tx.certificate.updateMany({ where: { clusterId }, data: { revokedAt: now } });`],
    ["an audit row", `await tx.auditLog.create({ data: auditRow(actor, "x", null) });`],
    ["an audit row", `await tx.run(insertInto("AuditLog", rows));`],
    ["an audit row", 'await tx.$executeRawUnsafe(`INSERT INTO "AuditLog" ("action") VALUES ($1)`, "x");'],
    ["a certificate row", `await tx.certificate.create({ data: row });`],
    ["a certificate row", `statements.push(insertInto("Certificate", [row]));`],
    ["a registration-attempt row", `await tx.registrationAttempt.create({ data: { result: "ok", sourceAddress } });`],
    ["a registration-attempt row", `statements.push(insertInto("RegistrationAttempt", [{ at: now, result: "ok" }]));`],
  ];
  for (const [rule, src] of planted) {
    test(`finds ${rule} in: ${src.split("\n").pop()!.slice(0, 70)}`, () => {
      assert.ok(
        sideDoors([{ file: "planted/side-door.ts", src }]).some((f) => f.startsWith(`${rule}:`)),
        `not found: ${rule}`,
      );
    });
  }

  test("reads are not writes", () => {
    const reads = [
      `await tx.cluster.updateMany({ where: { id, phase: "Provisioning" }, data: { agentVersion } });`,
      `await tx.cluster.updateMany({ where: claim ? { id, phase: "Provisioning" } : { id }, data: { ...identity } });`,
      `incCounter(WRITES, "writes, by kind", { kind: "status" });`,
      `const n = await tx.clusterEvent.count({ where: { clusterId, kind: "status", at: { gte: since } } });`,
      `await db().certificate.findMany({ where: { revokedAt: null } });`,
      'const c = columns("Cluster");\nsql`SELECT ${c("id")} FROM ${c.table} WHERE ${c("status")} = ${s}`;',
      `await tx.certificate.updateMany({ where: { serial, firstUsedAt: null }, data: { firstUsedAt: now } });`,
      `await tx.registrationToken.update({ where: { id }, data: { revokedAt: now } });`,
    ];
    assert.deepEqual(sideDoors(reads.map((src, i) => ({ file: `planted/read-${i}.ts`, src }))), []);
  });
});
