// The directive catalogue (DIRECTIVES in lib/domain/agent-protocol.ts): the types split between
// the agent and its cluster, the capability lists derived from it, and payloads checked by it.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AGENT_DIRECTIVES,
  clusterCapabilities,
  DIRECTIVE_TYPES,
  DIRECTIVES,
  directiveExecutor,
  isDirectiveType,
} from "@/lib/domain/agent-protocol";

test("every type is carried out by the agent or by its cluster; the agent's own are disconnect and rotate", () => {
  assert.deepEqual(DIRECTIVE_TYPES, ["disconnect", "rotate", "upgrade", "drain", "resume", "drainNodePool"]);
  assert.deepEqual(AGENT_DIRECTIVES, ["disconnect", "rotate"]);
  for (const t of DIRECTIVE_TYPES) assert.ok(["agent", "cluster"].includes(directiveExecutor(t)), t);
});

test("a cluster offers every cluster directive, drainNodePool only with node actions", () => {
  assert.deepEqual(clusterCapabilities({ nodeActions: true }), ["upgrade", "drain", "resume", "drainNodePool"]);
  assert.deepEqual(clusterCapabilities({ nodeActions: false }), ["upgrade", "drain", "resume"]);
  const offered = new Set([...AGENT_DIRECTIVES, ...clusterCapabilities({ nodeActions: true })]);
  assert.deepEqual([...offered].sort(), [...DIRECTIVE_TYPES].sort(), "every type is offered by some agent");
});

test("only the table's own keys are directive types", () => {
  assert.equal(isDirectiveType("upgrade"), true);
  for (const t of ["reboot", "toString", "constructor", "__proto__", ""]) assert.equal(isDirectiveType(t), false, t);
});

test("payloads are checked against the table", () => {
  const ok = (t: keyof typeof DIRECTIVES, v: unknown) => DIRECTIVES[t].payload.safeParse(v).success;
  assert.equal(ok("upgrade", { version: "1.5.0", image: "registry.example/fleet-agent:1.5.0" }), true);
  assert.equal(ok("upgrade", { version: "latest", image: "x" }), false, "a version is semver");
  assert.equal(ok("upgrade", { version: "1.5.0" }), false, "an upgrade names its image");
  assert.equal(ok("drainNodePool", { nodePool: "" }), false);
  assert.equal(ok("disconnect", {}), true, "the reason is optional");
  assert.equal(ok("rotate", { caFingerprint: "sha256:" + "A".repeat(64) }), true);
  assert.equal(ok("rotate", { caFingerprint: "md5:1" }), false);
});
