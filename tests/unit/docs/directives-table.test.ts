// docs/protocol.md's table of directive types is DIRECTIVES (lib/domain/agent-protocol.ts) written
// out: a type added, removed or changed in the table and not in the doc fails here. The expected
// text is printed on failure, ready to paste.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { DIRECTIVE_TYPES, DIRECTIVES } from "@/lib/domain/agent-protocol";

const BEGIN = "<!-- directive types: generated from DIRECTIVES in lib/domain/agent-protocol.ts -->";
const END = "<!-- end of directive types -->";

function fields(type: (typeof DIRECTIVE_TYPES)[number]): string {
  const shape = DIRECTIVES[type].payload.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
  const names = Object.keys(shape).map((k) => (shape[k]!.safeParse(undefined).success ? `\`${k}\`?` : `\`${k}\``));
  return names.length ? names.join(", ") : "none";
}

function expectedTable(): string {
  const rows = DIRECTIVE_TYPES.map((t) => {
    const d = DIRECTIVES[t];
    const by = d.by === "agent" ? "the agent" : "the cluster";
    const offered = d.offered === "always" ? "always" : "with node actions";
    return `| \`${t}\` | ${fields(t)} | ${by} | ${offered} | ${d.purpose} |`;
  });
  return ["| Type | Fields | Carried out by | Offered | Asks the agent to |", "|---|---|---|---|---|", ...rows].join("\n");
}

test("docs/protocol.md lists every directive type as DIRECTIVES declares it", () => {
  const doc = readFileSync(path.join(process.cwd(), "docs/protocol.md"), "utf8");
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  assert.ok(start >= 0 && end > start, `docs/protocol.md needs the markers ${BEGIN} ... ${END}`);
  const documented = doc.slice(start + BEGIN.length, end).trim();
  assert.equal(documented, expectedTable(), `docs/protocol.md's directive table should read:\n\n${expectedTable()}\n`);
});
