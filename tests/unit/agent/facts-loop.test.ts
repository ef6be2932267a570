import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClusterBackend } from "@/lib/agent/cluster-backend";
import { systemClock } from "@/lib/agent/clock";
import type { FactsReport } from "@/lib/agent/facts";
import { FactsDeadlineError, FactsLoop } from "@/lib/agent/facts-loop";

/** A cluster whose reads hang until abandoned (`hang`), or answer at once. */
class Backend implements ClusterBackend {
  capabilities = ["drain" as const];
  readonly pace = "own";
  factsReadAt = -Infinity;
  hang = false;
  abandoned: unknown = null;
  collects = 0;
  progressed = 0;
  facts: FactsReport = {
    agentVersion: "1.4.0",
    kubernetesVersion: "1.31.4",
    nodePools: [],
    workloads: { pods: 3, namespaces: 2 },
    health: { apiServer: "ok", logs: true, metrics: true },
  };
  private roundSeen: (() => void) | null = null;

  constructor(private readonly now: () => number) {}

  nextRound(): Promise<void> {
    return new Promise((resolve) => (this.roundSeen = resolve));
  }
  async collect(signal?: AbortSignal) {
    this.collects += 1;
    this.roundSeen?.();
    if (this.hang) {
      await new Promise<void>((resolve) => signal!.addEventListener("abort", () => resolve(), { once: true }));
      this.abandoned = signal!.reason;
    } else this.factsReadAt = this.now();
    return this.facts;
  }
  report() {
    return this.facts;
  }
  start() {}
  async progress() {
    this.progressed += 1;
  }
  ackEntries(ids: string[]) {
    return ids;
  }
}

function setup(intervalMs: number, deadlineMs: number) {
  let t = 1_000_000;
  const backend = new Backend(() => t);
  const errors: unknown[] = [];
  const loop = new FactsLoop(backend, {
    clock: { now: () => t, sleep: systemClock.sleep },
    intervalMs: () => intervalMs,
    deadlineMs: () => deadlineMs,
    onError: (err) => errors.push(err),
  });
  return { backend, loop, errors, advance: (ms: number) => (t += ms) };
}

test("a read past its deadline is abandoned, and the directives still move on", async () => {
  const { backend, loop } = setup(1_000, 30);
  backend.hang = true;
  await loop.round();
  assert.ok(backend.abandoned instanceof FactsDeadlineError, String(backend.abandoned));
  assert.equal(backend.progressed, 1);
});

test("facts older than a round may take are reported degraded; down stays down; fresh ones as read", async () => {
  const { backend, loop, advance } = setup(1_000, 5_000);
  await loop.round();
  assert.equal(loop.report().health?.apiServer, "ok");
  advance(6_000);
  assert.equal(loop.report().health?.apiServer, "ok", "within a deadline and an interval");
  advance(1);
  assert.deepEqual(loop.report(), { ...backend.facts, health: { ...backend.facts.health, apiServer: "degraded" } });
  backend.facts = { ...backend.facts, health: { ...backend.facts.health, apiServer: "down" } };
  assert.equal(loop.report().health?.apiServer, "down");
  await loop.round();
  backend.facts = { ...backend.facts, health: { ...backend.facts.health, apiServer: "ok" } };
  assert.equal(loop.report().health?.apiServer, "ok");
});

test("rounds run on their own: the first at start, the next on wake (a directive), none after close", async () => {
  const { backend, loop, errors } = setup(60_000, 5_000);
  await loop.ready();
  assert.equal(backend.collects, 1);
  const second = backend.nextRound();
  loop.wake();
  await second;
  assert.equal(backend.collects, 2);
  loop.close();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(backend.collects, 2);
  assert.deepEqual(errors, []);
});

test("before the first read ends the facts go as they are (no health yet), and start() does not wait for the read", async () => {
  const { backend, loop } = setup(1_000, 5_000);
  backend.hang = true;
  backend.facts = { agentVersion: "1.4.0" };
  const seen = backend.nextRound();
  loop.start();
  await seen;
  assert.deepEqual(loop.report(), { agentVersion: "1.4.0" }, "not yet read: no parts, not a degraded or down API server");
  loop.close();
});
