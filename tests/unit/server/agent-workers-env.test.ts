// AGENT_WORKERS (lib/env.ts): the agent port's worker processes, one per core unless set; 0 keeps
// the agent port in the main process; anything else is refused at start, by name.
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { test } from "node:test";
import { EnvError, parseEnv } from "@/lib/env";

const workers = (vars: Record<string, string>) => parseEnv({ NODE_ENV: "test", ...vars }).agentWorkers;

test("one worker per core unless AGENT_WORKERS says; 0 serves the agent port from the main process", () => {
  assert.equal(workers({}), availableParallelism());
  assert.equal(workers({ AGENT_WORKERS: "0" }), 0);
  assert.equal(workers({ AGENT_WORKERS: "3" }), 3);
});

test("a worker count that is not a whole number from 0 to 64 is refused by name", () => {
  for (const bad of ["-1", "65", "two", "1.5"])
    assert.throws(
      () => workers({ AGENT_WORKERS: bad }),
      (e: unknown) => e instanceof EnvError && /AGENT_WORKERS/.test(e.message),
      bad,
    );
});
