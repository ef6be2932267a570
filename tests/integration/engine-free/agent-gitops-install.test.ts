// The agent in a cluster installed by GitOps (state and token in Secrets of the loopback Kubernetes
// API): wiped state, used tokens put back, a state from another cluster, tokens replaced while
// approval waits, transient Secret errors, and a laptop agent beside an in-cluster install.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { FleetAgent, type FleetAgentOptions } from "@/lib/agent/agent";
import { FakeClock } from "@/lib/agent/clock";
import { MemoryLogger } from "@/lib/agent/log";
import { SecretStateStore, secretTokenSource } from "@/lib/agent/kube/secret-state";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { eksCluster } from "../../helpers/kube-clusters";
import { TOKEN, csrPublicKey, FakeFleet, tmpDir, removeTmpDirs, agentOptions } from "../../helpers/wire-fleet";

after(removeTmpDirs);

describe("the agent in a cluster, installed by GitOps", () => {
  let fleet: FakeFleet;
  before(async () => {
    fleet = await FakeFleet.start();
  });
  after(async () => {
    await fleet.close();
  });

  const STATE = { namespace: "fleet-system", name: "fleet-agent-state" };
  const TOKEN_SECRET = { namespace: "fleet-system", name: "fleet-agent-token" };

  /** The loopback Kubernetes API with the manifest's empty state Secret (and a token Secret when given). */
  async function cluster(token?: string) {
    const h = await startKubeCluster(eksCluster());
    h.api.addSecret(STATE.name);
    if (token) h.api.addSecret(TOKEN_SECRET.name, { token });
    return { ...h, store: new SecretStateStore(h.client, STATE), token: secretTokenSource(h.client, TOKEN_SECRET) };
  }

  /** As the CLI runs it with --state-secret and --token-secret (a simulated cluster behind it). */
  function inCluster(
    k: Awaited<ReturnType<typeof cluster>>,
    name: string,
    extra: Partial<FleetAgentOptions> & { clusterUid?: string } = {},
  ): FleetAgentOptions {
    return agentOptions(fleet, "", { name, store: k.store, token: k.token, idleWhenRefused: true, ...extra });
  }

  /** Lets `run` go on until `done()` holds (the FakeClock's sleeps return at once). */
  async function until(done: () => boolean, what: string) {
    for (let i = 0; i < 5_000 && !done(); i++) await new Promise((r) => setTimeout(r, 2));
    assert.ok(done(), what);
  }

  test("state Secret errors that pass (503, 429) are waited for with backoff, then it registers; 403 is configuration (exit 2)", async () => {
    fleet.tokens.set(TOKEN, 1);
    const k = await cluster(TOKEN);
    k.api.secretFailures.push(503, 429, 503);
    const logger = new MemoryLogger();
    const agent: FleetAgent = new FleetAgent(
      inCluster(k, "secret-busy-1", { logger, clock: new FakeClock(), hooks: { onHeartbeat: () => agent.stop() } }),
    );
    const result = await agent.run();
    assert.equal(result.outcome, "stopped", `${result.code} ${result.message}`);
    assert.ok(agent.clusterId, "registered once the API server answered");
    const waits = logger.entries.filter((e) => e.code === "STATE_UNAVAILABLE");
    assert.equal(waits.length, 3);
    assert.match(waits[0]!.message, /Secret fleet-system\/fleet-agent-state cannot be reached now: .*HTTP 503/);

    const refused = await cluster(TOKEN);
    refused.api.secretFailures.push(403);
    const denied = await new FleetAgent(inCluster(refused, "secret-rbac-1", { logger: new MemoryLogger() })).run();
    assert.deepEqual([denied.outcome, denied.exitCode], ["config", 2]);
    assert.match(denied.message, /could not read Secret fleet-system\/fleet-agent-state: .*HTTP 403/);
  });

  test("a state Secret wiped by a sync with no token idles, Ready=false saying why, then registers once a token is there; that token put back later is recognised as used and left alone", async () => {
    fleet.tokens.set(TOKEN, 1);
    const k = await cluster();
    const logger = new MemoryLogger();
    let revokedRefusals = 0;
    const first: FleetAgent = new FleetAgent(
      inCluster(k, "wiped-1", { logger, clock: new FakeClock(), hooks: { onHeartbeat: () => first.stop() } }),
    );
    const run = first.run();
    after(() => first.stop());
    await until(() => logger.has("TOKEN_AWAITED"), "waits for a token");
    assert.equal(first.ready, false);
    assert.match(
      first.notReadyReason ?? "",
      /^no identity in Secret fleet-system\/fleet-agent-state and no registration token in Secret fleet-system\/fleet-agent-token$/,
    );
    assert.match(logger.entries.find((e) => e.code === "TOKEN_AWAITED")!.message, /Argo CD Replace=true/);
    k.api.addSecret(TOKEN_SECRET.name, { token: TOKEN });
    assert.equal((await run).outcome, "stopped");
    assert.ok(first.clusterId);
    assert.equal(logger.entries.filter((e) => e.code === "TOKEN_AWAITED" && e.level === "warn").length, 1, "said once");
    assert.equal(k.api.secrets.has("fleet-system/fleet-agent-token"), false, "the used token's Secret was deleted");

    // GitOps puts the token Secret back; later the certificate is refused: the agent does not try
    // the used token, says so once, and leaves its Secret alone.
    k.api.addSecret(TOKEN_SECRET.name, { token: TOKEN });
    fleet.revoked.add(fleet.clusters.get("wiped-1")!.serial);
    const registers = fleet.registers.length;
    const later = new MemoryLogger();
    const second: FleetAgent = new FleetAgent(
      inCluster(k, "wiped-1", {
        logger: later,
        clock: new FakeClock(),
        hooks: { onFailure: (f) => void (f.code === "CERTIFICATE_REVOKED" && ++revokedRefusals >= 3 && second.stop()) },
      }),
    );
    assert.equal((await second.run()).outcome, "stopped");
    assert.equal(fleet.registers.length, registers, "no registration with the used token");
    assert.equal(later.entries.filter((e) => e.code === "TOKEN_ALREADY_USED").length, 1);
    assert.match(
      later.entries.find((e) => e.code === "TOKEN_ALREADY_USED")!.message,
      /the token in Secret fleet-system\/fleet-agent-token is the one this agent registered with/,
    );
    assert.ok(k.api.secrets.has("fleet-system/fleet-agent-token"), "left where GitOps put it");
    const deletes = k.api.requests.filter((r) => r.method === "DELETE" && r.path.endsWith("/secrets/fleet-agent-token"));
    assert.equal(deletes.length, 1, "deleted once, after the registration: no fight with the sync");
  });

  test("a state restored into another cluster (another kube-system UID) is not acted on: no heartbeat as the old id; it registers anew with a new key once a token is there", async () => {
    fleet.tokens.set(TOKEN, 1);
    const k = await cluster(TOKEN);
    const original: FleetAgent = new FleetAgent(
      inCluster(k, "velero-1", {
        clusterUid: "0b9c2a6e-4d1f-4b8e-9a63-1c2d3e4f5a6b",
        clock: new FakeClock(),
        hooks: { onHeartbeat: () => original.stop() },
      }),
    );
    assert.equal((await original.run()).outcome, "stopped");
    const oldId = original.clusterId!;
    const stored = JSON.parse(k.api.secretText(STATE.name, "cluster.json")!);
    assert.equal(stored.clusterUid, "0b9c2a6e-4d1f-4b8e-9a63-1c2d3e4f5a6b", "the identity is bound to its cluster");
    const oldKey = k.api.secretText(STATE.name, "key.pem")!;

    // Velero restores the namespace, state Secret included, into a DR cluster.
    const beats = fleet.heartbeats.length;
    const logger = new MemoryLogger();
    const restored: FleetAgent = new FleetAgent(
      inCluster(k, "velero-1", {
        clusterUid: "7e57c0de-0000-4000-8000-00000000d15a",
        logger,
        clock: new FakeClock(),
        hooks: { onHeartbeat: () => restored.stop() },
      }),
    );
    const run = restored.run();
    after(() => restored.stop());
    await until(() => logger.has("TOKEN_AWAITED"), "waits for a token to register anew");
    assert.equal(fleet.heartbeats.length, beats, "no heartbeat as the old cluster");
    const why = logger.entries.find((e) => e.code === "STATE_OTHER_CLUSTER")!;
    assert.equal(why.level, "error");
    assert.match(why.message, new RegExp(`holds the identity of cluster ${oldId} .*Two clusters must never share an id`));
    assert.match(restored.notReadyReason ?? "", /the state belongs to another cluster/);
    fleet.tokens.set(TOKEN, 1);
    k.api.addSecret(TOKEN_SECRET.name, { token: TOKEN });
    assert.equal((await run).outcome, "stopped");
    const reg = fleet.registers.at(-1)!;
    assert.notEqual(
      csrPublicKey(String(reg.body.csr)),
      crypto.createPublicKey(oldKey).export({ type: "spki", format: "pem" }).toString(),
      "a new key: the copied one belongs to the other cluster's identity",
    );
    assert.equal(reg.body.clusterUid, "7e57c0de-0000-4000-8000-00000000d15a");
    assert.equal(JSON.parse(k.api.secretText(STATE.name, "cluster.json")!).clusterUid, "7e57c0de-0000-4000-8000-00000000d15a");
  });

  test("a token replaced while the request waits for approval: asked again with the new one, same key, same request; a restart while pending asks with the same key", async () => {
    const rotated = "frt_rotatedid_" + "r0t4t3d".repeat(4);
    fleet.tokens.set(TOKEN, 1);
    fleet.tokens.set(rotated, 1);
    let current = TOKEN;
    let pending = 0;
    let agent: FleetAgent | null = null;
    const seen = fleet.registers.length;
    fleet.registerHook = () => {
      // The replaced token was revoked: only a repeat that carries the new one is still waiting.
      if (fleet.registers.at(-1)!.auth !== `Bearer ${current}`)
        return { status: 401, body: { error: "token_revoked", message: "This registration token was revoked." } };
      if (++pending > 3) return undefined;
      if (pending === 1) current = rotated;
      if (pending === 2) setImmediate(() => agent!.stop());
      return { status: 202, body: { status: "pending_approval", requestId: "rr_rot", retryAfterSeconds: 5 } };
    };
    const stateDir = path.join(tmpDir(), "s");
    const options = (logger: MemoryLogger, hooks: FleetAgentOptions["hooks"] = {}) =>
      agentOptions(fleet, stateDir, {
        name: "rotated-1",
        token: { describe: "Secret fleet-system/fleet-agent-token", read: async () => current },
        clock: new FakeClock(),
        logger,
        hooks,
      });
    try {
      const logger = new MemoryLogger();
      agent = new FleetAgent(options(logger));
      const first = await agent.run();
      assert.equal(first.outcome, "stopped", `${first.code} ${first.message}`);
      assert.match(
        logger.entries.find((e) => e.code === "APPROVAL_PENDING" && /was replaced/.test(e.message))!.message,
        /the registration token in Secret fleet-system\/fleet-agent-token was replaced while request rr_rot waits for approval/,
      );
      // The pod restarts while the request still waits.
      const restarted: FleetAgent = new FleetAgent(options(new MemoryLogger(), { onHeartbeat: () => restarted.stop() }));
      agent = restarted;
      assert.equal((await restarted.run()).outcome, "stopped");
      assert.ok(restarted.clusterId);
      const attempts = fleet.registers.slice(seen);
      assert.deepEqual(
        attempts.map((a) => a.auth),
        [TOKEN, rotated, rotated, rotated].map((t) => `Bearer ${t}`),
      );
      assert.deepEqual(attempts[1]!.body, attempts[0]!.body, "the same request, CSR included, with the new token");
      const keys = new Set(attempts.map((a) => csrPublicKey(String(a.body.csr))));
      assert.equal(keys.size, 1, "one key across the token change and the restart");
    } finally {
      fleet.registerHook = undefined;
      agent?.stop();
    }
  });

  test("KubeCluster tells the cluster's identity: the kube-system UID; unknown when RBAC refuses it", async () => {
    const k = await cluster();
    assert.equal(await k.kube.clusterIdentity(), k.api.kubeSystemUid.toLowerCase());
    const other = await cluster();
    other.api.kubeSystemForbidden = true;
    assert.equal(await other.kube.clusterIdentity(), null);
  });
});
