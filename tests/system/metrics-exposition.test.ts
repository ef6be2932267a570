// /api/metrics as Prometheus reads it, against the real server on TEST_ENGINE: parsed by a
// third-party parser (parse-prometheus-text-format), with the process metrics prom-client adds
// and the operator metrics of this service, values that move with heartbeats, registrations and
// refusals, scraped with the bearer token as a Prometheus scrape config sends it. Then the alert
// rules in prometheus/: well formed, and every metric they name is one this server serves.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { after, before, test } from "node:test";
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import YAML from "yaml";
import { call, heartbeatBody, mintToken, registerCluster, registerWith, registrationBody } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

const METRICS_TOKEN = "scrape-token-for-the-exposition-test";
let server: FleetServer;

before(async () => {
  // A burst of two registrations per address, so the third is refused 429 rate_limited.
  server = await startFleetServer({ METRICS_TOKEN, REGISTRATION_RATE_BURST: "2", REGISTRATION_RATE_PER_MINUTE: "1" });
});
after(async () => {
  await server?.stop();
});

type Families = Map<string, PrometheusFamily>;

async function scrape(): Promise<{ text: string; families: Families }> {
  const res = await fetch(`${server.consoleUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(res.status, 200);
  const text = await res.text();
  return { text, families: new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f])) };
}

function family(families: Families, name: string, type: PrometheusFamily["type"]): PrometheusFamily {
  const f = families.get(name);
  assert.ok(f, `${name} is served`);
  assert.equal(f.type, type, `${name} is a ${type}`);
  assert.ok(f.help.length > 0, `${name} has a help text`);
  return f;
}

/** The value of the sample of counter or gauge `name` whose labels are exactly `labels`. */
function value(families: Families, name: string, labels: Record<string, string> = {}): number {
  const f = families.get(name);
  assert.ok(f, `${name} is served`);
  const s = f.metrics.find((m) => JSON.stringify(m.labels ?? {}) === JSON.stringify(labels));
  assert.ok(s && "value" in s, `${name}${JSON.stringify(labels)} has a sample`);
  return Number(s.value);
}

/** An unlabelled histogram's count. */
function histogramCount(families: Families, name: string): number {
  const s = family(families, name, "HISTOGRAM").metrics[0];
  assert.ok(s && "buckets" in s, `${name} has buckets`);
  assert.equal(s.buckets["+Inf"], s.count, `${name}: the +Inf bucket holds every observation`);
  return Number(s.count);
}

// parse-prometheus-text-format 1.1.1 folds the series of a labelled histogram into one (labels,
// sum and count lost), so a labelled histogram's count is read from its exposition line; the
// parser still says the family is a histogram.
function labelledHistogramCount(text: string, name: string, label: string): number {
  const m = new RegExp(`^${name}_count\\{${label}\\} (\\d+)$`, "m").exec(text);
  assert.ok(m, `${name}_count{${label}} is served`);
  return Number(m[1]);
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("the exposition parses, with process metrics and the operator's metrics, and its values move", async () => {
  const token = await mintToken(server, { name: "exposition", maxClusters: 5 });
  const first = await registerCluster(server, "expo-1", { token });
  await registerCluster(server, "expo-2", { token });
  const refused = await registerWith(server, token.token, registrationBody("expo-3").body);
  assert.equal(refused.status, 429, JSON.stringify(refused.body));

  // The background jobs start a moment after the server answers (later on a busy machine): the
  // first scrape waits until the status sweep (every second) has been timed once.
  let a = await scrape();
  await until("the first timed status sweep", async () => {
    a = await scrape();
    return /^fleet_job_duration_seconds_count\{job="status-sweep"\} [1-9]/m.test(a.text);
  });
  // prom-client's default metrics, once (one registry per process): CPU, memory, GC, event loop.
  family(a.families, "process_cpu_user_seconds_total", "COUNTER");
  family(a.families, "process_resident_memory_bytes", "GAUGE");
  family(a.families, "nodejs_heap_size_used_bytes", "GAUGE");
  family(a.families, "nodejs_gc_duration_seconds", "HISTOGRAM");
  family(a.families, "nodejs_eventloop_lag_seconds", "GAUGE");
  family(a.families, "nodejs_eventloop_lag_p99_seconds", "GAUGE");
  assert.ok(value(a.families, "process_resident_memory_bytes") > 10_000_000);
  // The families kept from the hand-written exposition, with their labels.
  family(a.families, "fleet_process_memory_bytes", "GAUGE");
  assert.ok(value(a.families, "fleet_process_memory_bytes", { kind: "rss" }) > 0);
  family(a.families, "fleet_event_loop_delay_seconds", "GAUGE");
  assert.ok(value(a.families, "fleet_event_loop_delay_seconds", { quantile: "0.99" }) >= 0);
  family(a.families, "fleet_clusters", "GAUGE");
  assert.equal(value(a.families, "fleet_clusters", { status: "Pending" }), 2, "two clusters registered, none heartbeat yet");
  family(a.families, "fleet_database_reachable", "GAUGE");
  assert.equal(value(a.families, "fleet_database_reachable"), 1);
  family(a.families, "fleet_registration_attempts_total", "COUNTER");
  assert.equal(value(a.families, "fleet_registration_attempts_total", { result: "ok" }), 2);
  assert.equal(value(a.families, "fleet_registration_attempts_total", { result: "rate_limited" }), 1);
  // Requests shed, by reason: every reason from zero, the one refusal counted.
  family(a.families, "fleet_requests_shed_total", "COUNTER");
  assert.equal(value(a.families, "fleet_requests_shed_total", { reason: "rate_limited" }), 1);
  assert.equal(value(a.families, "fleet_requests_shed_total", { reason: "overloaded" }), 0);
  assert.equal(value(a.families, "fleet_requests_shed_total", { reason: "database_unavailable" }), 0);
  // The heartbeat writer's queue and its failure counters, present from the start.
  family(a.families, "fleet_heartbeat_buffered", "GAUGE");
  assert.equal(value(a.families, "fleet_heartbeat_flush_failures_total"), 0);
  assert.equal(value(a.families, "fleet_heartbeat_buffer_dropped_total", { kind: "facts" }), 0);
  // Background jobs, the status sweeper among them (it runs every second).
  family(a.families, "fleet_job_duration_seconds", "HISTOGRAM");
  const sweeps = labelledHistogramCount(a.text, "fleet_job_duration_seconds", 'job="status-sweep"');
  assert.ok(sweeps > 0, "the status sweep has run and been timed");
  // The database pool: PostgreSQL has one; SQLite is one connection in the process, no pool.
  if (server.db.engine === "postgres") {
    const inUse = value(a.families, "fleet_database_pool_connections", { state: "in_use" });
    const idle = value(a.families, "fleet_database_pool_connections", { state: "idle" });
    assert.ok(inUse >= 0 && idle >= 0 && inUse + idle >= 1, `the pool holds connections (${inUse} in use, ${idle} idle)`);
    assert.equal(value(a.families, "fleet_database_pool_waiting"), 0);
  } else {
    assert.equal(a.families.has("fleet_database_pool_connections"), false);
    assert.equal(a.families.has("fleet_database_pool_waiting"), false);
  }

  // Five heartbeats on one kept-alive mutual-TLS connection, which stays open for the scrape.
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem, ...first.client });
  try {
    for (let i = 0; i < 5; i++) {
      const res = await call(`${server.agentUrl}/api/agent/v1/heartbeat`, "POST", { agent, body: heartbeatBody() });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    let b = await scrape();
    await until("a heartbeat flush to be timed", async () => {
      b = await scrape();
      return (b.families.get("fleet_heartbeat_flush_duration_seconds")?.metrics.length ?? 0) > 0;
    });
    const ok = (f: Families) => (f.has("fleet_heartbeats_total") ? value(f, "fleet_heartbeats_total", { code: "200" }) : 0);
    assert.equal(ok(b.families) - ok(a.families), 5, "every heartbeat counted, on the agent port's direct path");
    assert.ok(histogramCount(b.families, "fleet_heartbeat_duration_seconds") >= 5);
    assert.ok(histogramCount(b.families, "fleet_heartbeat_flush_duration_seconds") >= 1, "the batch write was timed");
    family(b.families, "fleet_agent_connections", "GAUGE");
    assert.ok(value(b.families, "fleet_agent_connections") >= 1, "the kept-alive agent connection is open");
    family(b.families, "fleet_agent_tls_handshakes_total", "COUNTER");
    assert.ok(value(b.families, "fleet_agent_tls_handshakes_total", { resumed: "false" }) >= 1);
    await until(
      "the next status sweep (every second)",
      async () => labelledHistogramCount((await scrape()).text, "fleet_job_duration_seconds", 'job="status-sweep"') > sweeps,
    );
    assert.ok(value(b.families, "process_cpu_user_seconds_total") >= value(a.families, "process_cpu_user_seconds_total"));
  } finally {
    agent.destroy();
  }
  await until(
    "the closed connection to leave the gauge",
    async () => value((await scrape()).families, "fleet_agent_connections") === 0,
  );
});

// Names Prometheus makes itself rather than scraping them.
const PROMETHEUS_OWN = new Set(["up"]);
const PROMQL_WORDS = new Set(
  ["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and", "or", "unless"].concat(
    // aggregations, which may be followed by `by (...)` rather than their parenthesis
    ["sum", "min", "max", "avg", "count", "group", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values"],
  ),
);

/** The metric names a PromQL expression selects: identifiers that are not functions, keywords, labels or durations. */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values
    .replace(/\{[^}]*\}/g, "") // label matchers
    .replace(/\[[^\]]*\]/g, "") // ranges
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?[smhdwy]?\b/gi, "0") // numbers and durations (offset 5m)
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "$1"); // label lists
  const names = new Set<string>();
  for (const m of stripped.matchAll(/(?<![\w:])[a-zA-Z_:][\w:]*(?=\s*(\(?))/g)) {
    if (m[1] === "(" || PROMQL_WORDS.has(m[0])) continue;
    names.add(m[0]);
  }
  return [...names];
}

test("every alert rule is well formed and names only metrics this server serves", async () => {
  const dir = path.join(process.cwd(), "prometheus");
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
  assert.ok(files.length > 0);
  const { families } = await scrape();
  const served = (name: string) => {
    if (families.has(name)) return true;
    const base = name.replace(/_(bucket|sum|count)$/, "");
    return base !== name && ["HISTOGRAM", "SUMMARY"].includes(families.get(base)?.type ?? "");
  };
  const alerts: string[] = [];
  for (const file of files) {
    const doc = YAML.parse(readFileSync(path.join(dir, file), "utf8")) as {
      groups: { name: string; rules: Record<string, unknown>[] }[];
    };
    assert.ok(Array.isArray(doc.groups) && doc.groups.length > 0, `${file}: groups`);
    for (const group of doc.groups) {
      assert.match(group.name, /^fleet-registry\./, `${file}: group name`);
      for (const rule of group.rules) {
        const {
          alert,
          expr,
          for: pending,
          labels,
          annotations,
        } = rule as {
          alert: string;
          expr: string;
          for?: string;
          labels: { severity: string };
          annotations: Record<string, string>;
        };
        assert.match(alert, /^Fleet[A-Za-z]+$/, `${file}: alert name`);
        assert.equal(typeof expr, "string", `${alert}: expr`);
        if (pending !== undefined) assert.match(pending, /^\d+[smh]$/, `${alert}: for`);
        assert.ok(["warning", "critical"].includes(labels.severity), `${alert}: severity`);
        for (const key of ["summary", "description", "runbook"]) assert.ok(annotations[key]?.trim(), `${alert}: ${key}`);
        const names = metricNames(expr).filter((n) => !PROMETHEUS_OWN.has(n));
        assert.ok(names.length > 0, `${alert} names a metric`);
        for (const name of names) assert.ok(served(name), `${alert}: ${name} is not in /api/metrics`);
        alerts.push(alert);
      }
    }
  }
  // The alerts the issue asks for.
  for (const a of [
    "FleetClustersNotReady",
    "FleetClusterCertificateExpiring",
    "FleetRegistrationFailures",
    "FleetHeartbeatWriterBacklog",
  ])
    assert.ok(alerts.includes(a), `${a} exists`);
  assert.equal(new Set(alerts).size, alerts.length, "alert names are unique");
});

test("the rule parser finds metric names and nothing else", () => {
  assert.deepEqual(
    metricNames(
      'histogram_quantile(0.99, sum by (le, pod) (rate(a_bucket{job="x",le!="1"}[5m]))) > 1e-3 and on (pod) b_total offset 5m unless max without (instance) (c) - time() < 7 * 86400',
    ).sort(),
    ["a_bucket", "b_total", "c"],
  );
});
