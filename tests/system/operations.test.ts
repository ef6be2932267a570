// The pipeline gate with API keys, fleetctl, and the Prometheus exposition, against the real
// server on the engine TEST_ENGINE selects.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { heartbeatBody, registerCluster } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

const run = promisify(execFile);
let server: FleetServer;
let apiKey: string;

before(async () => {
  server = await startFleetServer();
  const key = await server.api("POST", "/api/v1/api-keys", { name: "ci-pipeline", role: "viewer" });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  apiKey = key.body.key;
});
after(async () => {
  await server?.stop();
});

async function fleetctl(...args: string[]): Promise<{ code: number; out: string }> {
  return fleetctlWith(apiKey, ...args);
}

async function fleetctlWith(key: string, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, ["--import", "tsx", "lib/cli/fleetctl.ts", ...args], {
      env: { ...process.env, FLEET_SERVER: server.consoleUrl, FLEET_API_KEY: key },
    });
    return { code: 0, out: r.stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

const bearer = (key: string) => ({ cookie: null, headers: { authorization: `Bearer ${key}` } });

test("API keys: shown once, hashed, role-limited, revocable, last use recorded", async () => {
  assert.match(apiKey, /^frk_[a-z0-9]+_[A-Za-z0-9_-]{32}$/);
  const list = await server.api("GET", "/api/v1/api-keys");
  const listed = list.body.items.find((k: { name: string }) => k.name === "ci-pipeline");
  assert.equal(listed.key, undefined, "never shown again");
  assert.equal((await server.api("GET", "/api/v1/clusters", undefined, bearer(apiKey))).status, 200);
  const mint = await server.api("POST", "/api/v1/registration-tokens", { name: "x" }, bearer(apiKey));
  assert.equal(mint.status, 403, "a viewer key cannot mint");
  assert.equal(mint.body.error, "forbidden");
  const used = (await server.api("GET", "/api/v1/api-keys")).body.items.find((k: { name: string }) => k.name === "ci-pipeline");
  assert.ok(used.lastUsedAt, "last use recorded");

  const other = await server.api("POST", "/api/v1/api-keys", { name: "temp", role: "operator" });
  assert.equal((await server.api("DELETE", `/api/v1/api-keys/${other.body.id}`)).status, 200);
  const revoked = await server.api("GET", "/api/v1/clusters", undefined, bearer(other.body.key));
  assert.equal(revoked.status, 401);
  assert.equal(revoked.body.error, "unauthenticated");
});

test("the gate fails with no match, fails with reasons, passes when every match is Active, Ready and enrolled", async () => {
  const none = await server.api("GET", "/api/v1/gate?selector=env%3Dnowhere", undefined, bearer(apiKey));
  assert.equal(none.status, 200);
  assert.equal(none.body.pass, false);
  assert.equal(none.body.clusters.length, 0);

  const { client } = await registerCluster(server, "gate-1", { body: { labels: { env: "staging", region: "eu" } } });
  const failing = await server.api("GET", "/api/v1/gate?selector=env%3Dstaging", undefined, bearer(apiKey));
  assert.equal(failing.body.pass, false);
  assert.ok(failing.body.clusters[0].reasons.length > 0);
  assert.ok(
    failing.body.clusters[0].reasons.some((r: string) => /not Active|not Ready/.test(r)),
    failing.body.clusters[0].reasons.join("; "),
  );

  const cli = await fleetctl("gate", "--selector", "env=staging");
  assert.equal(cli.code, 1, cli.out);
  assert.match(cli.out, /FAIL/);
  assert.match(cli.out, /gate-1/);
  assert.match(cli.out, /1 of 1 not ready \(tolerated: none\)/);

  // Tolerance: one unready cluster of one passes with --max-unready 1 (or 100%), and says so.
  const tolerated = await fleetctl(
    "gate",
    "--selector",
    "env=staging",
    "--max-unready",
    "100%",
    "--ignore-not-ready-longer-than",
    "30m",
  );
  assert.equal(tolerated.code, 0, tolerated.out);
  assert.match(tolerated.out, /PASS/);
  assert.match(tolerated.out, /1 of 1 not ready \(tolerated: up to 1, 100%\)/);
  assert.match(tolerated.out, /ignored 0 NotReady for more than 30m/);
  const badFlag = await fleetctl("gate", "--selector", "env=staging", "--max-unready", "-1");
  assert.equal(badFlag.code, 2, badFlag.out);
  const badQuery = await server.api("GET", "/api/v1/gate?selector=env%3Dstaging&maxUnready=150%25", undefined, bearer(apiKey));
  assert.equal(badQuery.status, 400);
  assert.equal(badQuery.body.error, "invalid_request");
  assert.deepEqual(
    badQuery.body.details.map((d: { field: string; rule: string }) => [d.field, d.rule]),
    [["maxUnready", "max_unready_percentage"]],
  );

  // Make it pass: a group for it, a heartbeat with logs and metrics flowing.
  await server.api("POST", "/api/v1/groups", { name: "staging", selector: "env=staging" });
  const beat = () => server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client });
  const deadline = Date.now() + 20_000;
  let gate;
  do {
    await beat();
    await new Promise((r) => setTimeout(r, 500));
    gate = await server.api("GET", "/api/v1/gate?group=staging", undefined, bearer(apiKey));
  } while (!gate.body.pass && Date.now() < deadline);
  assert.equal(gate.body.pass, true, JSON.stringify(gate.body));
  assert.deepEqual(gate.body.clusters[0].reasons, []);
  const ok = await fleetctl("gate", "--group", "staging");
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, /PASS/);

  const list = await fleetctl("clusters", "list", "--selector", "env=staging");
  assert.equal(list.code, 0);
  assert.match(list.out, /gate-1\s+cl_/);
  const badKey = await run(process.execPath, ["--import", "tsx", "lib/cli/fleetctl.ts", "gate", "--selector", "env=x"], {
    env: { ...process.env, FLEET_SERVER: server.consoleUrl, FLEET_API_KEY: "frk_nope_nopenopenopenopenopenope" },
  }).catch((e: { code: number; stderr: string }) => e);
  assert.equal((badKey as { code: number }).code, 2);
});

test("fleetctl tokens create needs an operator key and prints the token once", async () => {
  const viewer = await fleetctl("tokens", "create", "--name", "from-cli");
  assert.equal(viewer.code, 2);
  assert.match(viewer.out, /403 forbidden/);
  const op = await server.api("POST", "/api/v1/api-keys", { name: "ops", role: "operator" });
  const r = await run(
    process.execPath,
    [
      "--import",
      "tsx",
      "lib/cli/fleetctl.ts",
      "tokens",
      "create",
      "--name",
      "from-cli",
      "--ttl",
      "30m",
      "--max-clusters",
      "2",
      "--fixed",
      "env=prod",
    ],
    {
      env: { ...process.env, FLEET_SERVER: server.consoleUrl, FLEET_API_KEY: op.body.key },
    },
  );
  assert.match(r.stdout, /^frt_[a-z0-9]+_\S+/);
  const tokens = await server.api("GET", "/api/v1/registration-tokens");
  const t = tokens.body.items.find((x: { name: string }) => x.name === "from-cli");
  assert.equal(t.maxClusters, 2);
  assert.deepEqual(t.fixedLabels, { env: "prod" });
});

test("/api/metrics is valid Prometheus text with the fleet's series", async () => {
  const res = await fetch(`${server.consoleUrl}/api/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/plain/);
  const text = await res.text();
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  for (const line of text.trim().split("\n")) {
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      types.set(name!, type!);
      continue;
    }
    // The format ignores empty lines (prom-client puts one between families).
    if (line.startsWith("#") || line === "") continue;
    // prom-client writes NaN as "Nan" (Prometheus reads floats case-insensitively).
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.]+(?:e[+-]?[0-9]+)?|NaN|Nan|[+-]Inf)$/.exec(line);
    assert.ok(m, `not an exposition line: ${line}`);
    samples.set(m![1]! + (m![2] ?? ""), Number(m![3]));
  }
  assert.equal(types.get("fleet_clusters"), "gauge");
  assert.ok(samples.has('fleet_clusters{status="Ready"}'));
  assert.equal(types.get("fleet_heartbeat_duration_seconds"), "histogram");
  assert.ok((samples.get("fleet_heartbeat_duration_seconds_count") ?? 0) > 0);
  assert.ok([...samples.keys()].some((k) => k.startsWith("fleet_registration_attempts_total{")));
  assert.ok([...samples.keys()].some((k) => k.startsWith("fleet_registration_token_expiry_seconds{")));
  assert.ok((samples.get('fleet_heartbeats_total{code="200"}') ?? 0) > 0);
  // Background jobs run in the custom server's copy of the modules and are read by the Next
  // bundle's: one process-wide metrics registry.
  assert.equal(types.get("fleet_job_duration_seconds"), "histogram");
  assert.ok((samples.get('fleet_job_runs_total{job="status-sweep",result="ok"}') ?? 0) > 0);
  assert.ok((samples.get('fleet_job_duration_seconds_count{job="status-sweep"}') ?? 0) > 0);
});

test("fleetctl teams: an admin key creates a team and adds members; a member's key lists only its teams", async () => {
  const admin = await server.api("POST", "/api/v1/api-keys", { name: "platform-admin", role: "admin" });
  const adminKey = admin.body.key as string;
  const created = await fleetctlWith(adminKey, "teams", "create", "--name", "payments", "--selector", "team=payments");
  assert.equal(created.code, 0, created.out);
  assert.match(created.out, /payments {2}scope team=payments/);
  assert.equal((await fleetctlWith(adminKey, "teams", "create", "--name", "data", "--selector", "team=data")).code, 0);
  const refused = await fleetctlWith(adminKey, "teams", "create", "--name", "all", "--selector", "!legacy");
  assert.equal(refused.code, 2);
  assert.match(refused.out, /400 .*label value/);

  const minted = await fleetctlWith(
    adminKey,
    "tokens",
    "create",
    "--name",
    "pay-eu",
    "--team",
    "payments",
    "--fixed",
    "team=payments",
  );
  assert.equal(minted.code, 0, minted.out);
  assert.match(minted.out, /team payments, expires/);
  const outside = await fleetctlWith(
    adminKey,
    "tokens",
    "create",
    "--name",
    "pay-x",
    "--team",
    "payments",
    "--fixed",
    "team=data",
  );
  assert.equal(outside.code, 2);
  assert.match(outside.out, /422 .*scope/);

  const member = await server.api("POST", "/api/v1/api-keys", { name: "payments-ci", role: "none" });
  const added = await fleetctlWith(adminKey, "teams", "add-member", "payments", "--key-id", member.body.id, "--role", "operator");
  assert.equal(added.code, 0, added.out);
  assert.match(added.out, /payments-ci\s+apiKey\s+operator/);
  const asMember = await fleetctlWith(member.body.key, "teams", "list");
  assert.equal(asMember.code, 0, asMember.out);
  assert.match(asMember.out, /^payments\s+team=payments\s+0\s+1$/m);
  assert.doesNotMatch(asMember.out, /^data/m, "a team-only key sees its own teams");
  const removed = await fleetctlWith(adminKey, "teams", "remove-member", "payments", "payments-ci");
  assert.equal(removed.code, 0, removed.out);
  assert.match(removed.out, /no members yet/);
});
