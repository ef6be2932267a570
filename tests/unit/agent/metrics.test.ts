// The agent's /metrics (--metrics): what platform teams alert on, in Prometheus's text format, and
// served only when asked for.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { parseAgentArgs, UsageError } from "@/lib/agent/args";
import type { ClusterBackend } from "@/lib/agent/cluster-backend";
import type { FactsReport } from "@/lib/agent/facts";
import { startHealthServer } from "@/lib/agent/health";
import { MemoryLogger } from "@/lib/agent/log";
import { AgentMetrics } from "@/lib/agent/metrics";

/** Every line is a comment or `name{labels} value`, and each family is declared before its samples. */
function assertExposition(text: string) {
  assert.ok(text.endsWith("\n"));
  const declared = new Set<string>();
  for (const line of text.trimEnd().split("\n")) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge)$/.exec(line);
    if (type) {
      declared.add(type[1]!);
      continue;
    }
    if (line.startsWith("# HELP ")) continue;
    const sample =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/.exec(line);
    assert.ok(sample, `a sample line: ${line}`);
    assert.ok(declared.has(sample[1]!), `${sample[1]} is declared before its samples`);
  }
}

function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const failure = (code: "RATE_LIMITED" | "TOKEN_EXPIRED") => ({
  code,
  level: "warn" as const,
  message: "m",
  action: "retry" as const,
});

test("heartbeats, registrations and directives by result; heartbeat age from the clock", () => {
  let now = 1_000_000;
  const metrics = new AgentMetrics({ now: () => now, version: "1.4.0", ready: () => true });
  const hooks = metrics.hooks();
  const log = new MemoryLogger();
  const logger = metrics.logger(log);

  let text = metrics.render();
  assertExposition(text);
  assert.equal(value(text, "fleet_agent_heartbeat_age_seconds"), undefined, "no heartbeat yet is not an age");
  assert.equal(value(text, 'fleet_agent_info{version="1.4.0"}'), 1);

  hooks.onFailure!(failure("TOKEN_EXPIRED"), "register");
  hooks.onRegistered!({ clusterId: "c1", reregistered: false });
  hooks.onHeartbeat!({ seq: 1, latencyMs: 5, status: "ready", acks: 0 });
  hooks.onFailure!(failure("RATE_LIMITED"), "heartbeat");
  hooks.onHeartbeat!({ seq: 2, latencyMs: 5, status: "ready", acks: 0 });
  hooks.onDirective!({ id: "d1", type: "upgrade" });
  hooks.onDirective!({ id: "d2", type: "drainNodePool" });
  logger.log({ level: "info", code: "DIRECTIVE_DONE", message: "directive upgrade done", fields: { id: "d1" } });
  logger.log({ level: "warn", code: "DIRECTIVE_FAILED", message: "no", fields: { id: "d2" } });
  assert.equal(log.entries.length, 2, "the log still gets every entry");
  now += 42_000;

  text = metrics.render();
  assertExposition(text);
  assert.equal(value(text, 'fleet_agent_heartbeats_total{result="ok"}'), 2);
  assert.equal(value(text, 'fleet_agent_heartbeats_total{result="RATE_LIMITED"}'), 1);
  assert.equal(value(text, 'fleet_agent_registrations_total{result="ok"}'), 1);
  assert.equal(value(text, 'fleet_agent_registrations_total{result="TOKEN_EXPIRED"}'), 1);
  assert.equal(value(text, "fleet_agent_heartbeat_age_seconds"), 42);
  assert.equal(value(text, "fleet_agent_last_heartbeat_timestamp_seconds"), 1000);
  assert.equal(value(text, 'fleet_agent_directives_total{type="upgrade",outcome="received"}'), 1);
  assert.equal(value(text, 'fleet_agent_directives_total{type="upgrade",outcome="done"}'), 1);
  assert.equal(value(text, 'fleet_agent_directives_total{type="drainNodePool",outcome="failed"}'), 1);
  assert.equal(value(text, "fleet_agent_ready"), 1);
});

test("facts rounds are timed per part and aged from the last full read; the Lease's holder and transitions", async () => {
  let now = 5_000_000;
  let factsReadAt = -Infinity;
  const backend = {
    pace: "own",
    capabilities: [],
    get factsReadAt() {
      return factsReadAt;
    },
    async collect() {
      now += 1500;
      factsReadAt = now;
      return {} as FactsReport;
    },
    report: () => ({}) as FactsReport,
    start() {},
    async progress() {},
    ackEntries: () => [],
  } satisfies ClusterBackend;
  const metrics = new AgentMetrics({
    now: () => now,
    version: "1.4.0",
    lease: () => ({ held: false, holder: 'fleet-agent-7d9"x', transitions: 3 }),
  });
  const instrumented = metrics.instrument(backend) as ClusterBackend;
  assert.equal(instrumented.pace, "own", "everything but collect reaches the backend");
  await instrumented.collect();
  now += 10_000;
  const text = metrics.render();
  assertExposition(text);
  assert.equal(value(text, 'fleet_agent_facts_age_seconds{part="all"}'), 10);
  assert.ok(value(text, 'fleet_agent_facts_round_duration_seconds{part="all"}')! >= 0);
  assert.equal(value(text, "fleet_agent_lease_held"), 0);
  assert.equal(value(text, 'fleet_agent_lease_holder{holder="fleet-agent-7d9\\"x"}'), 1, "label values escaped");
  assert.equal(value(text, "fleet_agent_lease_transitions"), 3);
  // A part a backend reports on its own appears beside it.
  metrics.factsRead({ part: "pods", durationMs: 30_000, readAt: now - 60_000 });
  assert.equal(value(metrics.render(), 'fleet_agent_facts_age_seconds{part="pods"}'), 60);
});

test("/metrics is served on the health port only with --metrics", async () => {
  const plain = await startHealthServer(0, { ready: true }, "127.0.0.1");
  const metrics = new AgentMetrics({ version: "1.4.0" });
  const withMetrics = await startHealthServer(0, { ready: true, metrics: () => metrics.render() }, "127.0.0.1");
  try {
    const port = (s: typeof plain) => (s.address() as AddressInfo).port;
    assert.equal((await fetch(`http://127.0.0.1:${port(plain)}/metrics`)).status, 404);
    const res = await fetch(`http://127.0.0.1:${port(withMetrics)}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    assert.match(await res.text(), /^# HELP fleet_agent_info/);
  } finally {
    plain.close();
    withMetrics.close();
  }

  const base = ["--server", "https://f:8443", "--name", "a", "--state-dir", "/tmp/s"];
  assert.equal(parseAgentArgs(base).metrics, false);
  assert.equal(parseAgentArgs([...base, "--health-port", "8080", "--metrics"]).metrics, true);
  assert.throws(
    () => parseAgentArgs([...base, "--metrics"]),
    (err: Error) => err instanceof UsageError && /--health-port/.test(err.message),
  );
});
