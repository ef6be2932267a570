// Fleet CA rollover end to end, on the real server with the reference agent as
// a real process: start -> the bundle is served (CA endpoint, heartbeat answers) -> the agent
// adopts it and rotates onto the new CA when asked -> progress reaches 100% -> retire -> the agent
// port presents a server certificate from the new CA and the agent keeps heartbeating. The fleet
// starts on an RSA-3072 CA and rolls over to ECDSA P-256 (FLEET_CA_ALGORITHM set before the start),
// the way an existing fleet moves to the cheaper signature.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { makeCsr } from "../helpers/csr";
import { call, registerCluster } from "../helpers/agent-client";
import { startFleetServer, type ClientCert, type FleetServer } from "../helpers/fleet-server";
import { presentedCertificate } from "../helpers/tls-session";
import { until } from "../helpers/until";

let server: FleetServer;
let agent: ChildProcess | null = null;
let agentLog = "";

/** Waits as `until` does, 60 s by default, and shows the agent output on a timeout. */
const untilAgent = <T>(what: string, fn: () => Promise<T | undefined | false | null>, ms = 60_000) =>
  until(what, fn, ms, () => `agent output:\n${agentLog}`);
const dir = mkdtempSync(path.join(tmpdir(), "fleet-rollover-"));

before(async () => {
  server = await startFleetServer();
});
after(async () => {
  agent?.kill("SIGTERM");
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const fingerprintOf = (pem: string) => `sha256:${new X509Certificate(pem).fingerprint256.replace(/:/g, "").toLowerCase()}`;
const pems = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

/** An agent-port request trusting `ca` (a PEM bundle), optionally with a client certificate. */
const agentCall = (method: string, p: string, ca: string, body?: unknown, client?: ClientCert) =>
  call(`${server.agentUrl}${p}`, method, { ca, body, client });

const heartbeat = (extra: Record<string, unknown> = {}) => ({
  agentVersion: "1.4.0",
  kubernetesVersion: "1.30.2",
  health: { apiServer: "ok", logs: true, metrics: true },
  ...extra,
});

test("CA rollover: bundle served, the reference agent rotates onto the new CA, retire, heartbeats continue", async () => {
  const initial = await server.api("GET", "/api/v1/ca");
  assert.equal(initial.status, 200, JSON.stringify(initial.body));
  assert.equal(initial.body.cas.length, 1);
  const oldFp = initial.body.cas[0].fingerprint as string;
  assert.equal(initial.body.cas[0].state, "active");
  assert.equal(initial.body.rollover, null);
  assert.equal(oldFp, fingerprintOf(server.caPem));
  const metrics = await server.api("GET", "/api/metrics", undefined, { cookie: null });
  assert.match(
    String(metrics.body),
    new RegExp(`fleet_ca_not_after_timestamp_seconds\\{fingerprint="${oldFp}",state="active"\\} \\d{10}`),
  );

  // The reference agent, pinned to the CA the console shows.
  const fleet = await server.api("GET", "/api/v1/fleet");
  const token = await server.api("POST", "/api/v1/registration-tokens", { name: "rollover", ttlSeconds: 3600, maxClusters: 2 });
  assert.equal(token.status, 201);
  const tokenFile = path.join(dir, "token");
  writeFileSync(tokenFile, token.body.token, { mode: 0o600 });
  agent = spawn(
    process.execPath,
    [
      ...["--import", "tsx", "lib/agent/cli.ts"],
      ...["--server", server.agentUrl, "--token-file", tokenFile, "--name", "rollover-agent"],
      ...["--labels", "env=prod,region=eu-west-1", "--state-dir", path.join(dir, "state")],
      ...["--ca-fingerprint", fleet.body.caFingerprint, "--heartbeat-interval", "1", "--log-level", "info"],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  agent.stdout!.on("data", (c) => (agentLog += c));
  agent.stderr!.on("data", (c) => (agentLog += c));
  const agentClusterId = await untilAgent("the agent's cluster to be Ready", async () => {
    const c = (await server.api("GET", "/api/v1/clusters?q=rollover-agent")).body.items?.[0];
    return c?.status === "Ready" && (c.id as string);
  });

  // A second cluster whose "agent" is this test: it holds a certificate of the old CA.
  const { client: manualOld } = await registerCluster(server, "rollover-manual", { token: token.body });

  // The next CA is ECDSA P-256; the stored one stays what it is.
  await server.restart({ FLEET_CA_ALGORITHM: "ecdsa-p256" });
  assert.equal(fingerprintOf(server.caPem), oldFp);

  // Start: admin only, audited, once.
  assert.equal((await server.api("POST", "/api/v1/ca/rollover", {}, { cookie: null })).status, 401);
  const started = await server.api("POST", "/api/v1/ca/rollover", {});
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.deepEqual(
    started.body.cas.map((c: { state: string; key: string }) => [c.state, c.key]),
    [
      ["retiring", "RSA 3072"],
      ["incoming", "ECDSA P-256"],
    ],
  );
  const newFp = started.body.cas[1].fingerprint as string;
  assert.notEqual(newFp, oldFp);
  const again = await server.api("POST", "/api/v1/ca/rollover", {});
  assert.equal(again.status, 409);
  assert.equal(again.body.error, "invalid_transition");

  // The bundle: old (the server certificate's CA) first, then new.
  const served = await server.agent("GET", "/api/agent/v1/ca");
  assert.deepEqual(pems(String(served.body)).map(fingerprintOf), [oldFp, newFp]);
  const bundle = String(served.body);
  const newCaPem = pems(bundle)[1]!;
  assert.equal(new X509Certificate(pems(bundle)[0]!).publicKey.asymmetricKeyType, "rsa");
  assert.equal(new X509Certificate(newCaPem).publicKey.asymmetricKeyType, "ec");

  // An agent on the old CA is told to rotate and given the bundle; one without `rotate` in its
  // capabilities gets only the bundle.
  const hbOld = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeat(), { client: manualOld });
  assert.equal(hbOld.status, 200, JSON.stringify(hbOld.body));
  assert.deepEqual(pems(hbOld.body.caBundle).map(fingerprintOf), [oldFp, newFp]);
  assert.ok(hbOld.body.directives.some((d: { type: string }) => d.type === "rotate"));
  const hbNoCap = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeat({ capabilities: ["disconnect"] }), {
    client: manualOld,
  });
  assert.ok(!hbNoCap.body.directives.some((d: { type: string }) => d.type === "rotate"));

  // Retiring now would strand both clusters.
  const early = await server.api("POST", "/api/v1/ca/retire", {});
  assert.equal(early.status, 409, JSON.stringify(early.body));

  // The reference agent adopts the bundle and rotates onto the new CA by itself.
  await untilAgent(
    "the agent to rotate onto the new CA",
    async () => /ROTATED/.test(agentLog) && /CA_BUNDLE_UPDATED/.test(agentLog),
  );
  const mid = await untilAgent("the agent's cluster to count on the new CA", async () => {
    const s = await server.api("GET", "/api/v1/ca");
    const onNew = s.body.rollover?.byIssuer.find((b: { fingerprint: string }) => b.fingerprint === newFp)?.clusters;
    return onNew >= 1 && s.body.rollover.onOldCa === 1 && s.body.rollover;
  });
  assert.equal(mid.percent, 50);
  assert.equal(mid.canRetire, false);

  // The second cluster rotates the way the agent does; the new certificate chains to the new CA.
  const { csr: csr2, key: key2 } = makeCsr();
  const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr: csr2 }, { client: manualOld });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.ok(new X509Certificate(rotated.body.certificate).checkIssued(new X509Certificate(newCaPem)));
  const manualNew: ClientCert = { cert: rotated.body.certificate, key: key2 };
  const hbNew = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeat(), { client: manualNew });
  assert.equal(hbNew.status, 200, JSON.stringify(hbNew.body));
  assert.ok(!hbNew.body.directives.some((d: { type: string }) => d.type === "rotate"), "no rotate once on the new CA");

  const done = await untilAgent("progress to reach 100%", async () => {
    const s = await server.api("GET", "/api/v1/ca");
    return s.body.rollover?.percent === 100 && s.body.rollover;
  });
  assert.equal(done.canRetire, true);
  assert.equal(done.onOldCa, 0);

  // Retire: the server certificate switches to the new CA, the old CA leaves the bundle.
  const retiredAt = Date.now();
  const retired = await server.api("POST", "/api/v1/ca/retire", {});
  assert.equal(retired.status, 200, JSON.stringify(retired.body));
  assert.deepEqual(retired.body.cas, [{ ...retired.body.cas[0], fingerprint: newFp, state: "active" }]);
  assert.equal(retired.body.retired.fingerprint, oldFp);
  await untilAgent("the agent port to present a certificate from the new CA", async () =>
    (await presentedCertificate(server.agentPort)).checkIssued(new X509Certificate(newCaPem)),
  );
  const afterCa = await agentCall("GET", "/api/agent/v1/ca", newCaPem);
  assert.deepEqual(pems(String(afterCa.body)).map(fingerprintOf), [newFp]);

  // The agent keeps heartbeating over the new server certificate.
  await untilAgent("heartbeats after the switch", async () => {
    const c = (await server.api("GET", `/api/v1/clusters/${agentClusterId}`)).body;
    return c.lastHeartbeatAt && Date.parse(c.lastHeartbeatAt) > retiredAt + 3000 && c.status === "Ready";
  });
  assert.equal(agent!.exitCode, null, "the agent is still running");
  assert.doesNotMatch(agentLog, /TLS_UNTRUSTED|TLS_HANDSHAKE/);
  // Restarted with its configuration unchanged (pinned to the retired CA), the agent trusts the
  // CA it adopted during the rollover and carries on.
  await untilAgent("the agent to adopt the bundle without the retired CA", async () =>
    /CA_BUNDLE_UPDATED.*now trusting 1 fleet CA/.test(agentLog),
  );
  const first = agent;
  first.kill("SIGTERM");
  await new Promise((r) => first.once("exit", r));
  const restartedAt = Date.now();
  agent = spawn(process.execPath, first.spawnargs.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  agent.stdout!.on("data", (c) => (agentLog += c));
  agent.stderr!.on("data", (c) => (agentLog += c));
  await untilAgent("heartbeats after the agent's restart", async () => {
    const c = (await server.api("GET", `/api/v1/clusters/${agentClusterId}`)).body;
    return c.lastHeartbeatAt && Date.parse(c.lastHeartbeatAt) > restartedAt + 2000;
  });
  assert.match(agentLog, /the pinned fleet CA was rolled over/);

  // The test's own client trusting only the new CA reaches the port; the old CA's clients do not.
  assert.equal((await agentCall("POST", "/api/agent/v1/heartbeat", newCaPem, heartbeat(), manualNew)).status, 200);

  const audit = await server.api("GET", "/api/v1/audit?limit=50");
  const actions = (audit.body.items as { action: string }[]).map((a) => a.action);
  assert.ok(actions.includes("ca.rollover.start") && actions.includes("ca.rollover.retire"), actions.join(","));
  const finalMetrics = String((await server.api("GET", "/api/metrics", undefined, { cookie: null })).body);
  assert.match(finalMetrics, new RegExp(`fleet_ca_not_after_timestamp_seconds\\{fingerprint="${newFp}",state="active"\\}`));
  assert.doesNotMatch(finalMetrics, new RegExp(oldFp));
});
