// The drain-then-deregister wizard against the real server and a real agent process, on the
// engine TEST_ENGINE selects: every step through the API, a restart in the middle, an agent that
// never acknowledges, and the verify checks.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { registerCluster } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { until } from "../helpers/until";

let server: FleetServer;

before(async () => {
  server = await startFleetServer();
  const s = await server.api("PATCH", "/api/v1/settings", { heartbeatIntervalSeconds: 1, disconnectTimeoutSeconds: 5 });
  assert.equal(s.status, 200, JSON.stringify(s.body));
});
after(async () => {
  await server?.stop();
});

const hbBody = (pods: number, acks: string[] = []) => ({
  agentVersion: "1.4.0",
  kubernetesVersion: "1.30.2",
  workloads: { pods, namespaces: 3 },
  health: { apiServer: "ok", logs: true, metrics: true },
  acks,
});

/** Heartbeat facts are written in batches (every 250 ms): wait until the pods are stored. */
const reported = (id: string, pods: number) =>
  until(`${pods} pods stored`, async () => (await server.api("GET", `/api/v1/clusters/${id}`)).body.workloads?.pods === pods);

const act = (id: string, body: Record<string, unknown>) => server.api("POST", `/api/v1/clusters/${id}/deregistration`, body);

test("an agent-less walk: order enforced, force needs a reason, an agent that never acknowledges, verify", async () => {
  const { clusterId: id, client } = await registerCluster(server, "wizard-1", { body: { labels: { env: "dev", region: "eu" } } });
  await server.agent("POST", "/api/agent/v1/heartbeat", hbBody(12), { client });
  await reported(id, 12);

  for (const action of ["confirm-workloads", "disconnect", "remove", "cancel"]) {
    const r = await act(id, { action });
    assert.equal(r.status, 409, `${action} before start`);
    assert.equal(r.body.error, "invalid_transition");
  }
  const started = await act(id, { action: "start" });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.equal(started.body.step, "draining");
  assert.match(started.body.waitingFor, /12 pods/);

  // The agent is told to drain, and the cluster shows Draining.
  const drain = await until("drain directive", async () => {
    const hb = await server.agent("POST", "/api/agent/v1/heartbeat", hbBody(12), { client });
    return hb.body.directives?.find((d: { type: string }) => d.type === "drain") && hb.body;
  });
  assert.equal(drain.status, "Draining");

  // The drain's pods are recorded by the server: whoever opens the wizard later sees the whole curve.
  await server.agent("POST", "/api/agent/v1/heartbeat", hbBody(5), { client });
  const history = await until("the drain history to show 12 -> 5", async () => {
    const w = await server.api("GET", `/api/v1/clusters/${id}/deregistration`);
    const h: { at: string; pods: number }[] = w.body.workloads.history;
    return h.at(-1)?.pods === 5 && h;
  });
  assert.equal(history[0]!.pods, 12, "starts at the count the drain started from");
  assert.ok(Date.parse(history[0]!.at) >= Date.parse(started.body.startedAt));

  assert.equal((await act(id, { action: "confirm-workloads" })).status, 409, "pods remain");
  const noReason = await act(id, { action: "confirm-workloads", force: true });
  assert.equal(noReason.status, 400);
  const forced = await act(id, { action: "confirm-workloads", force: true, reason: "workloads moved by hand" });
  assert.equal(forced.status, 200);
  assert.equal(forced.body.step, "workloads-moved");
  assert.equal(forced.body.forced[0].reason, "workloads moved by hand");

  const disconnecting = await act(id, { action: "disconnect" });
  assert.equal(disconnecting.body.step, "disconnecting");
  assert.match(disconnecting.body.waitingFor, /acknowledge/);
  // The agent never acknowledges: removal is refused, then allowed with force after the timeout.
  assert.equal((await act(id, { action: "remove", reason: "agent is gone" })).status, 409);
  assert.equal((await act(id, { action: "remove", force: true, reason: "agent is gone" })).status, 409, "before the timeout");
  // Wait for the timeout as the console sees it (disconnectTimeoutSeconds: 5), not a fixed sleep.
  await until("the disconnect timeout to pass", async () => {
    const w = await server.api("GET", `/api/v1/clusters/${id}/deregistration`);
    return /removal may be forced/.test(w.body.waitingFor ?? "");
  });
  const removed = await act(id, { action: "remove", force: true, reason: "agent is gone" });
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  assert.equal(removed.body.step, "removed");
  assert.equal(removed.body.verification.passed, true, JSON.stringify(removed.body.verification));

  // Gone from the registry, its certificate refused with 410, its trail kept.
  assert.equal((await server.api("GET", `/api/v1/clusters/${id}`)).status, 404);
  const after = await server.agent("POST", "/api/agent/v1/heartbeat", hbBody(0), { client });
  assert.equal(after.status, 410);
  assert.equal(after.body.error, "cluster_deregistered");
  const audit = await server.api("GET", `/api/v1/audit?target=${id}&limit=50`);
  const actions = audit.body.items.map((e: { action: string }) => e.action);
  for (const a of ["deregistration.start", "deregistration.confirm-workloads", "deregistration.disconnect", "cluster.deregister"])
    assert.ok(actions.includes(a), a);
  assert.equal((await act(id, { action: "cancel" })).status, 409, "nothing to cancel after removal");
});

test("cancel returns the cluster to Active before removal", async () => {
  const { clusterId: id, client } = await registerCluster(server, "wizard-2", { body: { labels: { env: "dev", region: "eu" } } });
  await server.agent("POST", "/api/agent/v1/heartbeat", hbBody(0), { client });
  await reported(id, 0);
  assert.equal((await act(id, { action: "start" })).status, 200);
  assert.equal((await act(id, { action: "confirm-workloads" })).body.step, "workloads-moved", "zero pods: no force needed");
  const cancelled = await act(id, { action: "cancel", reason: "changed our mind" });
  assert.equal(cancelled.body.step, "cancelled");
  const detail = await server.api("GET", `/api/v1/clusters/${id}`);
  assert.equal(detail.body.phase, "Active");
  assert.equal((await act(id, { action: "start" })).body.step, "draining", "can start again");
});

test("a real agent walks the wizard across a server restart, acknowledges disconnect, exits and is refused", async () => {
  const t = await server.api("POST", "/api/v1/registration-tokens", { name: "agent", maxClusters: 1 });
  const fleet = await server.api("GET", "/api/v1/fleet");
  const dir = mkdtempSync(path.join(tmpdir(), "wizard-agent-"));
  const tokenFile = path.join(dir, "token");
  writeFileSync(tokenFile, t.body.token);
  const stateDir = path.join(dir, "state");
  const agent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "lib/agent/cli.ts",
      "--server",
      server.agentUrl,
      "--token-file",
      tokenFile,
      "--name",
      "wizard-3",
      "--labels",
      "env=dev,region=eu",
      "--state-dir",
      stateDir,
      "--ca-fingerprint",
      fleet.body.caFingerprint,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  agent.stdout.on("data", (c) => (output += c));
  agent.stderr.on("data", (c) => (output += c));
  const exited = new Promise<number | null>((r) => agent.once("exit", (code) => r(code)));
  try {
    const id = await until("the agent's cluster to be Ready", async () => {
      const list = await server.api("GET", "/api/v1/clusters?q=wizard-3");
      const c = list.body.items?.[0];
      return c?.status === "Ready" && (c.id as string);
    }).catch((err: Error) => {
      throw new Error(`${err.message}\nagent output:\n${output}`);
    });
    assert.equal(existsSync(tokenFile), false, "the agent deleted its used token file");
    assert.equal((await act(id, { action: "start" })).status, 200);

    // Restart the server mid-wizard: the persisted state resumes where it was.
    await server.restart();
    const resumed = await server.api("GET", `/api/v1/clusters/${id}/deregistration`);
    assert.equal(resumed.body.step, "draining");

    // The reference agent drains: its reported pods fall to zero.
    await until(
      "workloads at zero",
      async () => (await server.api("GET", `/api/v1/clusters/${id}/deregistration`)).body.workloads.pods === 0,
      40_000,
    );
    assert.equal((await act(id, { action: "confirm-workloads" })).body.step, "workloads-moved");
    assert.equal((await act(id, { action: "disconnect" })).body.step, "disconnecting");
    await until(
      "the disconnect acknowledgement",
      async () => (await server.api("GET", `/api/v1/clusters/${id}/deregistration`)).body.disconnect?.acknowledged,
      20_000,
    );
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("still running"), 15_000))]);
    assert.equal(code, 0, `agent exit: ${code}\n${output}`);
    assert.equal(existsSync(stateDir), false, "the agent deleted its state");
    // Removal needs a reason (400 without one, nothing removed), which the audit log keeps.
    const noReason = await act(id, { action: "remove" });
    assert.equal(noReason.status, 400, JSON.stringify(noReason.body));
    assert.equal(noReason.body.error, "invalid_request");
    assert.equal((await server.api("GET", `/api/v1/clusters/${id}`)).status, 200, "still registered");
    const removed = await act(id, { action: "remove", reason: "retired with the test" });
    assert.equal(removed.body.step, "removed");
    const audit = await server.api("GET", `/api/v1/audit?target=${id}&limit=50`);
    const entry = audit.body.items.find((e: { action: string }) => e.action === "cluster.deregister");
    assert.equal(entry?.details?.reason, "retired with the test", JSON.stringify(entry));
    assert.ok(
      removed.body.verification.checks.every((c: { ok: boolean }) => c.ok),
      JSON.stringify(removed.body.verification),
    );
    const tomb = await server.api("GET", `/api/v1/clusters/${id}/deregistration`);
    assert.equal(tomb.body.step, "removed");
  } finally {
    agent.kill("SIGKILL");
  }
});
