// No import cycle among the console's and the server's modules, type-only imports included.
// ESLint's import/no-cycle skips `import type` edges, so a cycle made only of types (query keys
// typed by the hooks that use them) passes lint; this scan follows every import between our own
// files. The agent program (lib/agent) is not scanned yet: its context and rotation types still
// refer to each other.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

const ROOT = process.cwd();
const SKIP = [path.join("lib", "server", "db", "generated"), path.join("lib", "agent")];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP.includes(rel) ? [] : sources(rel);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [rel] : [];
  });
}

function resolve(from: string, spec: string): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.join(path.dirname(from), spec) : null;
  if (base === null) return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (candidate.startsWith("lib") && /\.tsx?$/.test(candidate) && existsSync(path.join(ROOT, candidate))) return candidate;
  }
  return null;
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\b[^"';]*?from\s*["']([^"']+)["']/gm),
    ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
  ];
  return specs.flatMap((m) => resolve(file, m[1]!) ?? []);
}

test("lib/ (but the agent) has no import cycle, counting type-only imports", () => {
  const graph = new Map(sources("lib").map((f) => [f, importsOf(f)]));
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" -> "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});
