// The agent against a tiny local HTTPS server that answers per docs/protocol.md (127.0.0.1, port 0):
// real TLS, real client certificates, real CSRs. End-to-end tests against the real server
// live elsewhere; this checks the agent's own behaviour on the wire.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import forge from "node-forge";
import { FleetAgent } from "@/lib/agent/agent";
import { FakeClock } from "@/lib/agent/clock";
import { certificateFingerprint, certificateMatchesKey } from "@/lib/agent/csr";
import { MemoryLogger, formatEntry } from "@/lib/agent/log";
import type { ClusterBackend } from "@/lib/agent/cluster-backend";
import { preflight } from "@/lib/agent/preflight";
import { FileStateStore } from "@/lib/agent/state";
import { simulatedClusterUid } from "@/lib/agent/simulator/simulated-cluster";
import { fileTokenSource, staticTokenSource } from "@/lib/agent/token";
import { heartbeatRequestSchema, registerRequestSchema } from "@/lib/domain/agent-protocol";
import { FakeKubeApi } from "../../helpers/fake-kube-api";
import { eksCluster } from "../../helpers/kube-clusters";
import {
  ROOT,
  TOKEN,
  makeCa,
  csrPublicKey,
  FakeFleet,
  tmpDir,
  removeTmpDirs,
  tokenFile,
  CLUSTER_FP,
  agentOptions,
  mode,
  type HeartbeatCtx,
  type Reply,
} from "../../helpers/wire-fleet";

after(removeTmpDirs);

// ---- tests ----------------------------------------------------------------------------------

describe("agent protocol over TLS", () => {
  let fleet: FakeFleet;
  before(async () => {
    fleet = await FakeFleet.start();
  });
  after(async () => {
    await fleet.close();
  });

  test("pins the CA by fingerprint, registers, keeps 0600 state, drops the token, heartbeats over mTLS, acts on directives, disconnects", async () => {
    fleet.tokens.set(TOKEN, 1);
    fleet.caAsJson = true;
    fleet.desiredPolicyRevision = "7";
    const dir = tmpDir();
    const stateDir = path.join(dir, "state");
    const tf = tokenFile(dir);
    const logger = new MemoryLogger();
    const seen: Array<{ mode: number; key: number; dir: number }> = [];
    const agent = new FleetAgent(
      agentOptions(fleet, stateDir, {
        trust: { caFingerprint: certificateFingerprint(fleet.ca.pem) },
        token: fileTokenSource(tf),
        logger,
        hooks: {
          onHeartbeat: (info) => {
            const id = agent.clusterId!;
            if (info.seq === 1) {
              seen.push({
                mode: mode(path.join(stateDir, "cluster.json")),
                key: mode(path.join(stateDir, "key.pem")),
                dir: mode(stateDir),
              });
              fleet.directive(id, { id: "d-up", type: "upgrade", payload: { version: "1.5.0" } });
              fleet.directive(id, { id: "d-pool", type: "drainNodePool", payload: { nodePool: "workers" } });
              fleet.directive(id, { id: "d-drain", type: "drain" });
              fleet.directive(id, { id: "d-x", type: "teleport" });
            }
            if (info.seq === 9) fleet.directive(id, { id: "d-bye", type: "disconnect" });
          },
        },
      }),
    );
    const result = await agent.run();
    fleet.caAsJson = false;

    assert.equal(result.outcome, "disconnected");
    assert.equal(result.exitCode, 0);
    // Registration: bearer token, body per docs/protocol.md, CSR CN = name.
    const reg = fleet.registers.at(-1)!;
    assert.equal(reg.auth, `Bearer ${TOKEN}`);
    assert.equal(reg.body.name, "prod-eu-1");
    assert.equal(reg.body.caFingerprint, CLUSTER_FP);
    assert.deepEqual(reg.body.labels, { env: "prod", region: "eu-west-1" });
    assert.equal(reg.body.apiServerUrl, "https://kubernetes.default.svc:443");
    assert.equal(forge.pki.certificationRequestFromPem(String(reg.body.csr)).subject.getField("CN").value, "prod-eu-1");
    assert.equal(
      registerRequestSchema.safeParse(reg.body).success,
      true,
      "the server's own schema accepts the registration body",
    );
    // Token file deleted after success; state was private while it existed; then deleted.
    assert.equal(fs.existsSync(tf), false);
    assert.deepEqual(seen, [{ mode: 0o600, key: 0o600, dir: 0o700 }]);
    assert.equal(fs.existsSync(stateDir), false, "disconnect deletes the state dir");

    const beats = fleet.heartbeats.filter((h) => h.clusterId === fleet.clusters.get("prod-eu-1")!.id);
    assert.ok(beats.length >= 10, `heartbeats: ${beats.length}`);
    for (const b of beats) assert.equal(heartbeatRequestSchema.safeParse(b.body).success, true, JSON.stringify(b.body));
    // The directives are queued after heartbeat 1, so answer 2 carries them and heartbeat 3
    // acknowledges all four.
    assert.deepEqual(beats[1]!.body.acks, []);
    assert.deepEqual(((beats[2]!.body.acks as string[]) ?? []).sort(), ["d-drain", "d-pool", "d-up", "d-x"]);
    assert.deepEqual(beats[3]!.body.acks, [], "acks stop once the server stops sending the directive");
    // Policy revision applied after the first answer.
    assert.equal((beats[0]!.body as { policy?: unknown }).policy, undefined);
    assert.deepEqual(beats[1]!.body.policy, { appliedRevision: "7" });
    // Upgrade: old version for a couple of heartbeats, then the new one.
    const versions = beats.map((b) => b.body.agentVersion);
    assert.deepEqual(versions.slice(0, 5), ["1.4.0", "1.4.0", "1.4.0", "1.4.0", "1.5.0"]);
    assert.equal(versions.at(-1), "1.5.0");
    // drainNodePool: the pool shrinks to 0 nodes, then disappears.
    const pool = (b: HeartbeatCtx) =>
      (b.body.nodePools as Array<{ name: string; nodeCount: number; readyNodes: number }>).find((p) => p.name === "workers");
    const counts = beats.map((b) => pool(b)?.nodeCount ?? null);
    assert.ok(counts.includes(0), `pool reaches 0 nodes: ${JSON.stringify(counts)}`);
    assert.equal(counts.at(-1), null, "pool removed");
    // drain: pods fall towards 0.
    const pods = beats.map((b) => (b.body.workloads as { pods: number }).pods);
    assert.ok(pods[0]! > 0);
    assert.equal(pods.at(-1), 0, `pods: ${pods.join(",")}`);
    for (let i = 3; i < pods.length; i++) assert.ok(pods[i]! <= pods[i - 1]!, "pods never rise while draining");
    // Disconnect: the final heartbeat carries its ack, and nothing follows it.
    assert.deepEqual(beats.at(-1)!.body.acks, ["d-bye"]);
    assert.ok(logger.has("DIRECTIVE_UNKNOWN"));
    assert.ok(logger.has("TRUST_PIN_VERIFIED"));
    assert.ok(logger.has("TOKEN_FILE_DELETED"));
    assert.ok(logger.has("UPGRADE_COMPLETE"));
    assert.ok(logger.has("NODE_POOL_REMOVED"));
    assert.ok(logger.has("DISCONNECTED"));
    assert.ok(!logger.lines().join("\n").includes(TOKEN.slice(4)), "the token never appears in the log");
    // Every heartbeat used the client certificate issued to this cluster (CN = clusterId).
    assert.ok(beats.every((b) => b.clusterId === agent.clusterId));
    fleet.desiredPolicyRevision = null;
  });

  test("restarts from existing state without registering again, then stops on stop()", async () => {
    fleet.tokens.set(TOKEN, 1);
    const dir = tmpDir();
    const stateDir = path.join(dir, "state");
    const first = new FleetAgent(
      agentOptions(fleet, stateDir, {
        token: staticTokenSource(TOKEN),
        hooks: { onHeartbeat: () => first.stop() },
      }),
    );
    assert.equal((await first.run()).outcome, "stopped");
    const registers = fleet.registers.length;
    for (const f of ["key.pem", "cert.pem", "ca.pem", "cluster.json"]) assert.equal(mode(path.join(stateDir, f)), 0o600, f);
    const saved = JSON.parse(fs.readFileSync(path.join(stateDir, "cluster.json"), "utf8")) as { clusterId: string; name: string };
    assert.equal(saved.name, "prod-eu-1");
    assert.equal(saved.clusterId, first.clusterId);

    const logger = new MemoryLogger();
    // No token, no CA flag: the stored CA and client certificate are enough.
    const second = new FleetAgent(
      agentOptions(fleet, stateDir, {
        trust: { fromState: true },
        logger,
        hooks: { onHeartbeat: (i) => i.seq >= 2 && second.stop() },
      }),
    );
    const result = await second.run();
    assert.equal(result.outcome, "stopped");
    assert.equal(fleet.registers.length, registers, "no second registration");
    assert.equal(second.clusterId, first.clusterId);
    const loaded = logger.entries.find((e) => e.code === "STATE_LOADED");
    const keptKey = crypto.createPublicKey(fs.readFileSync(path.join(stateDir, "key.pem"), "utf8"));
    const keptHash = crypto
      .createHash("sha256")
      .update(keptKey.export({ type: "spki", format: "der" }))
      .digest("hex");
    assert.equal(loaded?.fields?.key, `sha256:${keptHash}`, "the start names the kept key's fingerprint");
    assert.ok(logger.has("TRUST_STATE_CA"));
    assert.ok(fs.existsSync(stateDir), "stop keeps state");
  });

  test("after a start the first heartbeat goes at once, without the facts not read yet", async () => {
    fleet.tokens.set(TOKEN, 1);
    const stateDir = path.join(tmpDir(), "state");
    const first = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "slow-facts",
        token: staticTokenSource(TOKEN),
        hooks: { onHeartbeat: () => first.stop() },
      }),
    );
    assert.equal((await first.run()).outcome, "stopped");
    // A cluster whose every read hangs until its round's deadline (a busy API server).
    const hanging: ClusterBackend = {
      pace: "own",
      capabilities: [],
      factsReadAt: -Infinity,
      collect: (signal) =>
        new Promise((resolve) => signal?.addEventListener("abort", () => resolve({ agentVersion: "1.4.0" }), { once: true })),
      report: () => ({ agentVersion: "1.4.0" }),
      start: () => undefined,
      progress: async () => undefined,
      ackEntries: (ids) => ids,
    };
    const before = fleet.heartbeats.length;
    const second = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "slow-facts",
        cluster: hanging,
        trust: { fromState: true },
        hooks: { onHeartbeat: () => second.stop() },
      }),
    );
    assert.equal((await second.run()).outcome, "stopped");
    const sent = fleet.heartbeats.at(-1)!.body;
    assert.equal(fleet.heartbeats.length, before + 1);
    for (const part of ["nodePools", "workloads", "health", "kubernetesVersion"])
      assert.equal(sent[part], undefined, `${part}: not yet read`);
    assert.ok(heartbeatRequestSchema.safeParse(sent).success, "a valid heartbeat");
  });

  test("preflight (a standby's readiness): state loaded and the stored certificate accepted over mutual TLS; not with a revoked certificate, a broken state or no fleet", async () => {
    fleet.tokens.set(TOKEN, 1);
    const stateDir = path.join(tmpDir(), "state");
    const first = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "standby-1",
        token: staticTokenSource(TOKEN),
        hooks: { onHeartbeat: () => first.stop() },
      }),
    );
    await first.run();
    const store = new FileStateStore(stateDir);
    const check = (server = fleet.url) => preflight({ store, server, timeoutMs: 5_000 });
    const heartbeats = fleet.heartbeats.length;
    assert.deepEqual(await check(), { ok: true });
    assert.deepEqual(fleet.heartbeats.at(-1)?.body, {}, "an empty body: nothing reported");
    assert.equal(fleet.heartbeats.length, heartbeats + 1);

    fleet.revoked.add(fleet.clusters.get("standby-1")!.serial);
    assert.deepEqual(await check(), { ok: false, reason: "the fleet refused the stored certificate (certificate_revoked)" });
    fleet.revoked.clear();

    const refused = await check(new URL("https://127.0.0.1:1"));
    assert.equal(refused.ok, false);
    assert.match((refused as { reason: string }).reason, /^the fleet could not be reached over mutual TLS/);

    fs.writeFileSync(path.join(stateDir, "cluster.json"), "{ not json");
    const broken = await check();
    assert.equal(broken.ok, false);
    assert.match((broken as { reason: string }).reason, /does not load: .*cluster\.json is not valid JSON/);
  });

  test("a wrong fingerprint pin refuses to start (exit 2) before sending any token", async () => {
    const before = fleet.registers.length;
    const logger = new MemoryLogger();
    const agent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        trust: { caFingerprint: "sha256:" + "00".repeat(32) },
        token: staticTokenSource(TOKEN),
        logger,
      }),
    );
    const result = await agent.run();
    assert.equal(result.exitCode, 2);
    assert.equal(result.code, "TRUST_PIN_MISMATCH");
    assert.match(result.message, /the pinned CA does not match this server/);
    assert.equal(fleet.registers.length, before);
  });

  test("without --ca-file, --ca-fingerprint or stored state it refuses to start with an actionable message", async () => {
    const logger = new MemoryLogger();
    const result = await new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), { trust: { fromState: true }, logger }),
    ).run();
    assert.equal(result.exitCode, 2);
    assert.equal(result.code, "TRUST_MISSING");
    assert.match(result.message, /--ca-file/);
    assert.match(result.message, /--ca-fingerprint/);
  });

  test("a server certificate from another CA is reported as TLS_UNTRUSTED, with backoff", async () => {
    const other = await makeCa("some other CA");
    const logger = new MemoryLogger();
    const clock = new FakeClock();
    let failures = 0;
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        trust: { caPem: other.pem },
        token: staticTokenSource(TOKEN),
        logger,
        clock,
        random: () => 1,
        hooks: { onFailure: () => ++failures >= 3 && agent.stop() },
      }),
    );
    const result = await agent.run();
    assert.equal(result.outcome, "stopped");
    const lines = logger.entries.filter((e) => e.code === "TLS_UNTRUSTED");
    assert.equal(lines.length, 3);
    assert.match(lines[0]!.message, /the pinned CA does not match this server/);
    // Full-jitter backoff with random()=1 hits the exponential ceiling: 1 s, 2 s.
    assert.deepEqual(clock.sleeps.slice(0, 2), [1000, 2000]);
  });

  test("a server certificate for another host name is reported as TLS_HOSTNAME_MISMATCH", async () => {
    const misnamed = await FakeFleet.start({ hosts: ["fleet.example.com"] });
    try {
      const logger = new MemoryLogger();
      const agent: FleetAgent = new FleetAgent(
        agentOptions(misnamed, path.join(tmpDir(), "s"), {
          token: staticTokenSource(TOKEN),
          logger,
          hooks: { onFailure: () => agent.stop() },
        }),
      );
      await agent.run();
      const entry = logger.entries.find((e) => e.code === "TLS_HOSTNAME_MISMATCH");
      assert.ok(entry, logger.codes().join(","));
      assert.match(entry.message, /127\.0\.0\.1/);
      assert.equal(misnamed.registers.length, 0, "nothing was sent to the wrong server");
    } finally {
      await misnamed.close();
    }
  });

  for (const [code, logCode, advice] of [
    ["token_missing", "TOKEN_MISSING", /--token-file/],
    ["token_invalid", "TOKEN_INVALID", /mint a new token/],
    ["token_expired", "TOKEN_EXPIRED", /mint a new token/],
    ["token_revoked", "TOKEN_REVOKED", /revoked/],
    ["token_exhausted", "TOKEN_EXHAUSTED", /maximum number of clusters/],
  ] as const) {
    test(`401 ${code} ends the run with exit 3 and ${logCode}, never logging the token`, async () => {
      fleet.registerHook = () => ({ status: 401, body: { error: code, message: "no" } });
      try {
        const dir = tmpDir();
        const tf = tokenFile(dir);
        const logger = new MemoryLogger();
        const result = await new FleetAgent(
          agentOptions(fleet, path.join(dir, "s"), { token: fileTokenSource(tf), logger }),
        ).run();
        assert.equal(result.outcome, "rejected");
        assert.equal(result.exitCode, 3);
        assert.equal(result.code, logCode);
        const entry = logger.entries.find((e) => e.code === logCode)!;
        assert.match(entry.message, advice);
        assert.ok(fs.existsSync(tf), "a refused token file is kept");
        const text = logger.entries.map((e) => formatEntry(e, new Date())).join("\n");
        assert.ok(!text.includes("s3cr3t"), "token not logged");
        assert.match(text, new RegExp(`fleet-agent ${logCode} `));
      } finally {
        fleet.registerHook = undefined;
      }
    });
  }

  test("429 rate_limited waits for Retry-After, then registers", async () => {
    fleet.tokens.set(TOKEN, 1);
    let limited = 1;
    fleet.registerHook = () =>
      limited-- > 0
        ? { status: 429, body: { error: "rate_limited", message: "slow down" }, headers: { "retry-after": "7" } }
        : undefined;
    const clock = new FakeClock();
    const logger = new MemoryLogger();
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        name: "rate-limited-1",
        token: staticTokenSource(TOKEN),
        clock,
        logger,
        hooks: { onHeartbeat: () => agent.stop() },
      }),
    );
    try {
      const result = await agent.run();
      assert.equal(result.outcome, "stopped");
      // Retry-After (7 s) plus full jitter over a window as long again (random 0.5 of 7 s).
      assert.equal(clock.sleeps[0], 10500, "never earlier than Retry-After, jittered after it");
      assert.ok(logger.has("RATE_LIMITED"));
      assert.ok(agent.clusterId);
    } finally {
      fleet.registerHook = undefined;
    }
  });

  test("503 overloaded and database_unavailable: waits Retry-After plus jitter, on the same connection", async () => {
    fleet.tokens.set(TOKEN, 1);
    const answers: Reply[] = [
      { status: 503, body: { error: "overloaded", message: "busy" }, headers: { "retry-after": "3" } },
      { status: 503, body: { error: "database_unavailable", message: "no database" }, headers: { "retry-after": "2" } },
    ];
    fleet.heartbeatHook = () => answers.shift();
    fleet.heartbeatPorts = [];
    const clock = new FakeClock();
    const logger = new MemoryLogger();
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        name: "overloaded-1",
        token: staticTokenSource(TOKEN),
        clock,
        logger,
        hooks: { onHeartbeat: () => agent.stop() },
      }),
    );
    try {
      assert.equal((await agent.run()).outcome, "stopped");
      // Retry-After plus full jitter over a window as long again (random 0.5): 3 + 1.5, then 2 + 1.
      assert.deepEqual(clock.sleeps.slice(0, 2), [4500, 3000]);
      assert.ok(logger.has("OVERLOADED") && logger.has("DATABASE_UNAVAILABLE"));
      assert.equal(fleet.heartbeatPorts.length, 3);
      assert.equal(new Set(fleet.heartbeatPorts).size, 1, "every retry on the same keep-alive connection");
    } finally {
      fleet.heartbeatHook = undefined;
    }
  });

  test("a heartbeat answered after the timeout: the retry waits for that connection instead of opening a new one", async () => {
    fleet.tokens.set(TOKEN, 1);
    fleet.heartbeatPorts = [];
    // The first heartbeat is answered 450 ms late (timeout 300 ms); the retry queues behind it.
    fleet.heartbeatDelayMs = (n) => (n === 1 ? 450 : 0);
    const logger = new MemoryLogger();
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        name: "late-answer-1",
        token: staticTokenSource(TOKEN),
        logger,
        requestTimeoutMs: 300,
        hooks: { onHeartbeat: () => agent.stop() },
      }),
    );
    try {
      assert.equal((await agent.run()).outcome, "stopped");
      // On a loaded machine a retry may time out as well (300 ms is short): each one is one more
      // heartbeat on the same connection, never a new connection.
      const timeouts = logger.entries.filter((e) => e.code === "NET_TIMEOUT").length;
      assert.ok(timeouts >= 1, "the late answer timed out");
      assert.equal(fleet.heartbeatPorts.length, timeouts + 1);
      assert.equal(new Set(fleet.heartbeatPorts).size, 1, "no new TLS connection for the retry");
    } finally {
      fleet.heartbeatDelayMs = undefined;
    }
  });

  test("403 label_not_allowed, 422 missing_required_labels and 409 cluster_conflict are refusals with their own codes", async () => {
    for (const [status, error, logCode] of [
      [403, "label_not_allowed", "LABEL_NOT_ALLOWED"],
      [422, "missing_required_labels", "MISSING_REQUIRED_LABELS"],
      [409, "cluster_conflict", "CLUSTER_CONFLICT"],
    ] as const) {
      fleet.registerHook = () => ({ status, body: { error, message: "server words", details: { labels: ["team"] } } });
      const logger = new MemoryLogger();
      const result = await new FleetAgent(
        agentOptions(fleet, path.join(tmpDir(), "s"), { token: staticTokenSource(TOKEN), logger }),
      ).run();
      assert.equal(result.code, logCode);
      assert.equal(result.exitCode, 3);
      assert.match(logger.entries.find((e) => e.code === logCode)!.message, /server words/);
    }
    fleet.registerHook = undefined;
  });

  test("202 pending_approval twice, then 201: the same request again at the server's pace, one clear line, registered with that key", async () => {
    fleet.tokens.set(TOKEN, 1);
    const seen = fleet.registers.length;
    let pending = 2;
    fleet.registerHook = () =>
      pending-- > 0
        ? {
            status: 202,
            body: { status: "pending_approval", requestId: "rr_123", retryAfterSeconds: 20 },
            headers: { "retry-after": "20" },
          }
        : undefined;
    const clock = new FakeClock();
    const logger = new MemoryLogger();
    const stateDir = path.join(tmpDir(), "s");
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "approval-wait-1",
        token: staticTokenSource(TOKEN),
        clock,
        logger,
        hooks: { onHeartbeat: () => agent.stop() },
      }),
    );
    try {
      assert.equal((await agent.run()).outcome, "stopped");
      const attempts = fleet.registers.slice(seen);
      assert.equal(attempts.length, 3);
      for (const a of attempts) {
        assert.equal(a.auth, `Bearer ${TOKEN}`);
        assert.deepEqual(a.body, attempts[0]!.body, "the very same body, CSR included");
      }
      // Retry-After (20 s) plus a tenth of jitter (random 0.5): 21 s, twice.
      assert.deepEqual(clock.sleeps.slice(0, 2), [21_000, 21_000]);
      const waiting = logger.entries.filter((e) => e.code === "APPROVAL_PENDING");
      assert.equal(waiting.filter((e) => e.level === "info").length, 1, "one line, not one per repeat");
      const key = fs.readFileSync(path.join(stateDir, "key.pem"), "utf8");
      // The key's fingerprint with every 202 (the SHA-256 of its SPKI DER, as the approval queue shows it).
      const fingerprint = `sha256:${crypto
        .createHash("sha256")
        .update(crypto.createPublicKey(key).export({ type: "spki", format: "der" }))
        .digest("hex")}`;
      assert.equal(
        waiting[0]!.message,
        `waiting for an operator to approve registration request rr_123 in the console; this agent's key is ${fingerprint}`,
      );
      assert.ok(waiting.length >= 2 && waiting.every((e) => e.fields?.key === fingerprint), "every 202 names the key");
      assert.equal(
        crypto.createPublicKey(key).export({ type: "spki", format: "pem" }).toString(),
        csrPublicKey(String(attempts[0]!.body.csr)),
        "registered with the key the pending request carried",
      );
      assert.equal(agent.clusterId, fleet.clusters.get("approval-wait-1")!.id);
    } finally {
      fleet.registerHook = undefined;
    }
  });

  test("403 registration_denied ends the run (exit 3) with the operator's reason; 410 registration_request_expired too", async () => {
    for (const [status, error, logCode, words] of [
      [
        403,
        "registration_denied",
        "REGISTRATION_DENIED",
        /denied this cluster's registration request.*the operator's reason: not a cluster of ours/,
      ],
      [410, "registration_request_expired", "REGISTRATION_REQUEST_EXPIRED", /waited 7 days/],
    ] as const) {
      let answers = 0;
      fleet.registerHook = () =>
        answers++ === 0
          ? { status: 202, body: { status: "pending_approval", requestId: "rr_9", retryAfterSeconds: 5 } }
          : { status, body: { error, message: "not a cluster of ours" } };
      const logger = new MemoryLogger();
      const result = await new FleetAgent(
        agentOptions(fleet, path.join(tmpDir(), "s"), { token: staticTokenSource(TOKEN), logger }),
      ).run();
      assert.equal(result.outcome, "rejected");
      assert.equal(result.exitCode, 3);
      assert.equal(result.code, logCode);
      assert.match(logger.entries.find((e) => e.code === logCode)!.message, words);
      assert.equal(answers, 2, "no request after the decision");
    }
    fleet.registerHook = undefined;
  });

  test("in a Deployment a denied registration waits for a new token instead of exiting, then registers with it", async () => {
    fleet.tokens.set(TOKEN, 0);
    const second = "frt_otherpublicid_" + "n3wt0k3n".repeat(4);
    fleet.tokens.set(second, 1);
    let current = TOKEN;
    fleet.registerHook = () =>
      fleet.registers.at(-1)!.auth === `Bearer ${TOKEN}`
        ? { status: 403, body: { error: "registration_denied", message: "use the prod token" } }
        : undefined;
    const clock = new FakeClock();
    const logger = new MemoryLogger();
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        name: "denied-idle-1",
        token: { describe: "Secret fleet-system/fleet-agent-token", read: async () => current },
        idleWhenRefused: true,
        clock,
        logger,
        hooks: {
          onFailure: (f) => {
            if (f.code === "REGISTRATION_DENIED") setImmediate(() => (current = second));
          },
          onHeartbeat: () => agent.stop(),
        },
      }),
    );
    try {
      assert.equal((await agent.run()).outcome, "stopped");
      assert.ok(agent.clusterId, "registered with the new token");
      assert.equal(fleet.registers.at(-1)!.auth, `Bearer ${second}`);
      assert.ok(clock.sleeps.includes(60_000), "checked the token again a minute later");
      assert.match(
        logger.entries.find((e) => e.code === "REGISTRATION_DENIED" && e.level === "warn")!.message,
        /waiting for a new token in Secret fleet-system\/fleet-agent-token/,
      );
    } finally {
      fleet.registerHook = undefined;
      fleet.tokens.delete(second);
    }
  });

  test("clusterUid: a simulated cluster reports a stable UUID-shaped UID on register and every heartbeat; one can be forced", async () => {
    fleet.tokens.set(TOKEN, 2);
    const run = async (name: string, clusterUid?: string) => {
      const seen = fleet.registers.length;
      const beats = fleet.heartbeats.length;
      const agent: FleetAgent = new FleetAgent(
        agentOptions(fleet, path.join(tmpDir(), "s"), {
          name,
          clusterUid,
          token: staticTokenSource(TOKEN),
          hooks: { onHeartbeat: (info) => info.seq === 2 && agent.stop() },
        }),
      );
      await agent.run();
      const reg = fleet.registers.slice(seen)[0]!.body;
      assert.equal(registerRequestSchema.safeParse(reg).success, true);
      const hbs = fleet.heartbeats.slice(beats);
      assert.equal(hbs.length, 2);
      for (const hb of hbs) assert.equal(hb.body.clusterUid, reg.clusterUid, "every heartbeat carries it");
      return String(reg.clusterUid);
    };
    const uid = await run("uid-sim-1");
    assert.match(uid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(uid, simulatedClusterUid("uid-sim-1"), "derived from the name: stable across runs");
    assert.notEqual(simulatedClusterUid("uid-sim-2"), uid);
    assert.equal(await run("uid-sim-2", uid), uid, "forced: a second cluster reports the first one's UID");
  });

  test("a state write that fails after the certificate was issued is retried, not an exit", async () => {
    fleet.tokens.set(TOKEN, 1);
    const stateDir = path.join(tmpDir(), "s");
    const store = new FileStateStore(stateDir);
    let failures = 2;
    const save = store.save.bind(store);
    store.save = async (state) => {
      if (failures-- > 0) throw new Error("Operation cannot be fulfilled: the API server is busy");
      return save(state);
    };
    const logger = new MemoryLogger();
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "save-retry-1",
        store,
        token: staticTokenSource(TOKEN),
        logger,
        hooks: { onHeartbeat: () => agent.stop() },
      }),
    );
    const result = await agent.run();
    assert.equal(result.outcome, "stopped", result.message);
    assert.equal(logger.entries.filter((e) => e.code === "STATE_SAVE_FAILED").length, 2);
    assert.equal(fleet.registers.filter((r) => r.body.name === "save-retry-1").length, 1, "registered once");
    assert.equal((await new FileStateStore(stateDir).load())?.cluster.clusterId, agent.clusterId);
  });

  test("410 cluster_deregistered on a heartbeat deletes the state dir and exits 0", async () => {
    fleet.tokens.set(TOKEN, 1);
    const stateDir = path.join(tmpDir(), "s");
    const logger = new MemoryLogger();
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "gone-1",
        token: staticTokenSource(TOKEN),
        logger,
        hooks: { onHeartbeat: (i) => i.seq === 2 && fleet.gone.add(agent.clusterId!) },
      }),
    );
    const result = await agent.run();
    assert.equal(result.outcome, "deregistered");
    assert.equal(result.exitCode, 0);
    assert.equal(result.code, "CLUSTER_DEREGISTERED");
    assert.equal(fs.existsSync(stateDir), false);
    assert.ok(logger.has("STATE_DELETED"));
  });

  test("409 stale_lease_holder: the agent reports its Lease, and once refused as a stale holder it stops (exit 1) instead of retrying", async () => {
    fleet.tokens.set(TOKEN, 1);
    const logger = new MemoryLogger();
    const lease = { holder: "fleet-agent-7d9f-abcde", transitions: 2, createdAt: "2026-12-06T08:00:00Z" };
    // Counted here: the fleet's own count includes the heartbeats of the tests before this one.
    let beats = 0;
    const before = fleet.heartbeats.length;
    fleet.heartbeatHook = () =>
      ++beats === 2
        ? { status: 409, body: { error: "stale_lease_holder", message: "another agent took the Lease over" } }
        : undefined;
    try {
      const result = await new FleetAgent(
        agentOptions(fleet, path.join(tmpDir(), "s"), {
          name: "stale-1",
          token: staticTokenSource(TOKEN),
          logger,
          lease: { report: () => lease },
        }),
      ).run();
      assert.deepEqual(fleet.heartbeats.at(-2)?.body.lease, lease, "the heartbeat carries the Lease as last held");
      assert.equal(fleet.heartbeats.length - before, 2, "no retry after the refusal");
      assert.equal(result.outcome, "failed");
      assert.equal(result.exitCode, 1);
      assert.equal(result.code, "STALE_LEASE_HOLDER");
      assert.ok(logger.has("STALE_LEASE_HOLDER"));
    } finally {
      fleet.heartbeatHook = undefined;
    }
  });

  test("403 certificate_revoked: without a token it keeps retrying with advice; with one it re-registers and keeps its id", async () => {
    fleet.tokens.set(TOKEN, 2);
    const logger = new MemoryLogger();
    let token: string | null = TOKEN;
    let firstId: string | null = null;
    let revokedFailures = 0;
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        name: "revoked-1",
        token: { describe: "test token", read: async () => token },
        logger,
        hooks: {
          onRegistered: (info) => {
            if (!info.reregistered) {
              firstId = info.clusterId;
              token = null; // used up, as the CLI deletes its token file
            }
          },
          onHeartbeat: (i) => {
            if (i.seq === 1) fleet.revoked.add(fleet.clusters.get("revoked-1")!.serial);
            if (i.seq >= 3) agent.stop();
          },
          onFailure: (f) => {
            // After two refusals the operator provides a new token.
            if (f.code === "CERTIFICATE_REVOKED" && ++revokedFailures === 2) token = TOKEN;
          },
        },
      }),
    );
    const result = await agent.run();
    assert.equal(result.outcome, "stopped");
    assert.equal(revokedFailures, 3, "two refusals without a token, then one that triggers re-registration");
    assert.match(logger.entries.find((e) => e.code === "CERTIFICATE_REVOKED")!.message, /new token/);
    assert.ok(logger.has("REREGISTERING"));
    assert.ok(firstId);
    assert.equal(agent.clusterId, firstId, "re-registration keeps the cluster id");
    assert.equal(agent.heartbeats, 3);
  });

  test("a lost registration answer: the retry proves the same key, consumes no second use and keeps the cluster id", async () => {
    fleet.tokens.set(TOKEN, 1);
    fleet.dropRegisterAnswers = 1;
    const stateDir = path.join(tmpDir(), "s");
    const seen = fleet.registers.length;
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "lost-answer-1",
        token: staticTokenSource(TOKEN),
        hooks: { onHeartbeat: () => agent.stop() },
      }),
    );
    const result = await agent.run();
    assert.equal(result.outcome, "stopped");
    const attempts = fleet.registers.slice(seen);
    assert.equal(attempts.length, 2, "the first answer was lost, the retry succeeded");
    const [first, second] = attempts.map((a) => csrPublicKey(String(a.body.csr)));
    assert.equal(second, first, "both CSRs carry the same public key");
    assert.equal(fleet.tokens.get(TOKEN), 0, "one use consumed, not two (the retry proved the kept key)");
    assert.equal(agent.clusterId, fleet.clusters.get("lost-answer-1")!.id);
    const kept = fs.readFileSync(path.join(stateDir, "key.pem"), "utf8");
    assert.equal(crypto.createPublicKey(kept).export({ type: "spki", format: "pem" }).toString(), first);
    assert.equal(fs.existsSync(path.join(stateDir, "pending-key.pem")), false, "the pending key is forgotten once registered");
  });

  test("a restart between a lost answer and the retry still proves the same key (kept in the state dir)", async () => {
    fleet.tokens.set(TOKEN, 1);
    fleet.dropRegisterAnswers = 1;
    const stateDir = path.join(tmpDir(), "s");
    const seen = fleet.registers.length;
    // The first process stops as soon as its first attempt failed (killed after the server committed).
    const first = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "lost-answer-2",
        token: staticTokenSource(TOKEN),
        hooks: { onFailure: () => first.stop() },
      }),
    );
    assert.equal((await first.run()).outcome, "stopped");
    assert.ok(fs.existsSync(path.join(stateDir, "pending-key.pem")));
    assert.equal(mode(path.join(stateDir, "pending-key.pem")), 0o600);
    const second: FleetAgent = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "lost-answer-2",
        token: staticTokenSource(TOKEN),
        hooks: { onHeartbeat: () => second.stop() },
      }),
    );
    assert.equal((await second.run()).outcome, "stopped");
    const keys = fleet.registers.slice(seen).map((a) => csrPublicKey(String(a.body.csr)));
    assert.equal(keys.length, 2);
    assert.equal(keys[1], keys[0]);
    assert.equal(fleet.tokens.get(TOKEN), 0);
  });

  test("certificate expired past the grace: one clear line, slow retries, then re-registration with the kept key and a bound token", async () => {
    fleet.tokens.set(TOKEN, 1);
    const logger = new MemoryLogger();
    const clock = new FakeClock();
    let token: string | null = TOKEN;
    let expired = false;
    let refusals = 0;
    const seen = fleet.registers.length;
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        name: "expired-1",
        token: { describe: "the token Secret", read: async () => token },
        logger,
        clock,
        hooks: {
          onRegistered: (info) => {
            token = null;
            // The new certificate is accepted again.
            if (info.reregistered) expired = false;
          },
          onHeartbeat: (i) => {
            if (i.seq === 1) expired = true;
            if (i.seq >= 2) agent.stop();
          },
          onFailure: (f) => {
            if (f.code === "CLIENT_CERTIFICATE_REQUIRED" && ++refusals === 3) {
              fleet.tokens.set("frt_bound_" + "x".repeat(24), 1);
              token = "frt_bound_" + "x".repeat(24);
            }
          },
        },
      }),
    );
    fleet.heartbeatHook = () =>
      expired ? { status: 401, body: { error: "client_certificate_required", message: "certificate expired" } } : undefined;
    try {
      const result = await agent.run();
      assert.equal(result.outcome, "stopped");
    } finally {
      fleet.heartbeatHook = undefined;
    }
    const notices = logger.entries.filter((e) => e.code === "REREGISTRATION_NEEDED");
    assert.equal(notices.filter((e) => e.level === "error").length, 1, "one clear line, not one per retry");
    assert.equal(notices.length, 3, "the later waits are logged at debug");
    assert.match(notices[0]!.message, /Re-enrol/);
    assert.ok(clock.sleeps.filter((ms) => ms >= 60_000).length >= 2, `slow retries: ${clock.sleeps.join(",")}`);
    const keys = fleet.registers.slice(seen).map((a) => csrPublicKey(String(a.body.csr)));
    assert.equal(keys.length, 2);
    assert.equal(keys[1], keys[0], "the re-registration presents the key it already had");
  });

  test("rotates when a third or less of the certificate lifetime remains, and uses the new key", async () => {
    fleet.tokens.set(TOKEN, 1);
    // Issued 20 h ago, valid for 24 h: 4 h (1/6) left, so rotation is due at once.
    fleet.certTimes = () => ({ notBefore: Date.now() - 20 * 3600_000, notAfter: Date.now() + 4 * 3600_000 });
    const stateDir = path.join(tmpDir(), "s");
    const logger = new MemoryLogger();
    let keyBefore = "";
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, stateDir, {
        name: "rotating-1",
        token: staticTokenSource(TOKEN),
        logger,
        hooks: {
          onRegistered: () => (keyBefore = fs.readFileSync(path.join(stateDir, "key.pem"), "utf8")),
          onHeartbeat: (i) => i.seq >= 3 && agent.stop(),
        },
      }),
    );
    const rotationsBefore = fleet.rotations;
    await agent.run();
    fleet.certTimes = () => ({ notBefore: Date.now() - 60_000, notAfter: Date.now() + 86_400_000 });
    assert.equal(fleet.rotations, rotationsBefore + 1, "rotated once, then the fresh certificate is not due");
    const keyAfter = fs.readFileSync(path.join(stateDir, "key.pem"), "utf8");
    const certAfter = fs.readFileSync(path.join(stateDir, "cert.pem"), "utf8");
    assert.notEqual(keyAfter, keyBefore, "a new key");
    assert.equal(certificateMatchesKey(certAfter, keyAfter), true);
    assert.equal(mode(path.join(stateDir, "key.pem")), 0o600);
    const newSerial = new crypto.X509Certificate(certAfter).serialNumber.toUpperCase();
    const beats = fleet.heartbeats.filter((h) => h.clusterId === agent.clusterId);
    assert.ok(beats.length >= 3);
    assert.ok(
      beats.every((b) => b.serial === newSerial),
      "every heartbeat used the rotated certificate",
    );
    assert.ok(logger.has("ROTATE_DUE") && logger.has("ROTATED"));
    assert.deepEqual(
      fs.readdirSync(stateDir).filter((f) => !["key.pem", "cert.pem", "ca.pem", "cluster.json"].includes(f)),
      [],
      "no temporary files left",
    );
  });

  test("connection refused is NET_CONNREFUSED with advice, and backoff stays within its bounds", async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const logger = new MemoryLogger();
    const clock = new FakeClock();
    let failures = 0;
    const agent: FleetAgent = new FleetAgent({
      ...agentOptions(fleet, path.join(tmpDir(), "s"), { logger, clock, random: () => 0.999, token: staticTokenSource(TOKEN) }),
      server: new URL(`https://127.0.0.1:${port}`),
      hooks: { onFailure: () => ++failures >= 9 && agent.stop() },
    });
    await agent.run();
    const entries = logger.entries.filter((e) => e.code === "NET_CONNREFUSED");
    assert.equal(entries.length, 9);
    assert.match(entries[0]!.message, /is the server running, and is the port right/);
    const ceilings = [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000];
    clock.sleeps.slice(0, 8).forEach((ms, i) => {
      assert.ok(ms <= ceilings[i]! && ms >= ceilings[i]! * 0.99, `sleep ${i}: ${ms}`);
    });
  });

  test("a plain-HTTP port is reported as a TLS handshake failure", async () => {
    const plain = http.createServer((_req, res) => res.end("hello"));
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    try {
      const port = (plain.address() as net.AddressInfo).port;
      const logger = new MemoryLogger();
      const agent: FleetAgent = new FleetAgent({
        ...agentOptions(fleet, path.join(tmpDir(), "s"), { logger, token: staticTokenSource(TOKEN) }),
        server: new URL(`https://127.0.0.1:${port}`),
        hooks: { onFailure: () => agent.stop() },
      });
      await agent.run();
      const entry = logger.entries.find((e) => e.code === "TLS_HANDSHAKE");
      assert.ok(entry, logger.codes().join(","));
      assert.match(entry.message, /HTTPS agent port/);
    } finally {
      plain.closeAllConnections();
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  test("late acks: directives are acted on at once but acknowledged only after the delay", async () => {
    fleet.tokens.set(TOKEN, 1);
    const clock = new FakeClock();
    const agent: FleetAgent = new FleetAgent(
      agentOptions(fleet, path.join(tmpDir(), "s"), {
        name: "late-1",
        token: staticTokenSource(TOKEN),
        clock,
        ackDelayMs: 95_000,
        hooks: {
          onHeartbeat: (i) => {
            if (i.seq === 1) fleet.directive(agent.clusterId!, { id: "late-d", type: "drain" });
            if (i.seq >= 7) agent.stop();
          },
        },
      }),
    );
    await agent.run();
    const beats = fleet.heartbeats.filter((h) => h.clusterId === agent.clusterId);
    const acked = beats.map((b) => (b.body.acks as string[]).includes("late-d"));
    // The directive arrives with answer 2. With a 30 s interval (random 0.5: no jitter),
    // heartbeats 3-5 go out 30, 60 and 90 s later, before the 95 s delay; heartbeat 6 acks.
    assert.deepEqual(acked.slice(0, 6), [false, false, false, false, false, true]);
    const pods = beats.map((b) => (b.body.workloads as { pods: number }).pods);
    assert.ok(pods[3]! < pods[1]! * 0.5, `drain began before the ack: ${pods.join(",")}`);
  });
});

describe("agent and simulator as processes", () => {
  let fleet: FakeFleet;
  let dir: string;
  before(async () => {
    fleet = await FakeFleet.start();
    dir = tmpDir();
    fs.writeFileSync(path.join(dir, "ca.pem"), fleet.ca.pem);
  });
  after(async () => {
    await fleet.close();
  });

  function run(
    script: string,
    args: string[],
    timeoutMs = 60_000,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "lib/agent", script), ...args], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`${script} did not exit within ${timeoutMs} ms\n${stdout}\n${stderr}`));
      }, timeoutMs);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  test("cli: no trust flag and no state -> exit 2 with TRUST_MISSING", async () => {
    const r = await run("cli.ts", ["--server", fleet.url.href, "--name", "cli-1", "--state-dir", path.join(dir, "none")]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /fleet-agent TRUST_MISSING .*--ca-file/);
  });

  test("cli: a bad flag -> exit 2 naming the flag", async () => {
    const r = await run("cli.ts", ["--server", "http://127.0.0.1:1", "--name", "x", "--state-dir", dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--server must be an https:\/\/ URL/);
  });

  test("cli: registers, heartbeats, and on disconnect deletes state and exits 0", async () => {
    fleet.tokens.set(TOKEN, 1);
    const tf = tokenFile(dir);
    const stateDir = path.join(dir, "cli-state");
    fleet.interval = 1;
    fleet.heartbeatHook = (ctx) => {
      if (fleet.heartbeats.filter((h) => h.clusterId === ctx.clusterId).length === 2)
        fleet.directive(ctx.clusterId, { id: "bye", type: "disconnect" });
      return undefined;
    };
    try {
      const r = await run("cli.ts", [
        "--server",
        fleet.url.href,
        "--token-file",
        tf,
        "--name",
        "cli-2",
        "--labels",
        "env=dev,region=eu-west-1",
        "--state-dir",
        stateDir,
        "--ca-file",
        path.join(dir, "ca.pem"),
        "--heartbeat-interval",
        "0.2",
      ]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /fleet-agent REGISTERED /);
      assert.match(r.stdout, /fleet-agent CLUSTER_CA .*simulated cluster CA/);
      assert.match(r.stdout, /fleet-agent DISCONNECTED /);
      assert.equal(fs.existsSync(tf), false, "token file deleted");
      assert.equal(fs.existsSync(stateDir), false, "state deleted");
      assert.ok(!(r.stdout + r.stderr).includes("s3cr3t"));
      const reg = fleet.registers.at(-1)!;
      assert.deepEqual(reg.body.labels, { env: "dev", region: "eu-west-1" });
      assert.match(String(reg.body.caFingerprint), /^sha256:[0-9a-f]{64}$/);
    } finally {
      fleet.heartbeatHook = undefined;
      fleet.interval = 30;
    }
  });

  test("cli from a laptop (--kubeconfig) next to an in-cluster install: its upgrade and disconnect touch nothing in the cluster, and it says so", async () => {
    fleet.tokens.set(TOKEN, 1);
    const api = await new FakeKubeApi(eksCluster(), { tokens: ["laptop-admin"] }).start();
    api.addAgentBindings();
    const kubeconfig = path.join(dir, "laptop-kubeconfig");
    fs.writeFileSync(kubeconfig, api.kubeconfig("laptop-admin"));
    const installed = api.deploymentState();
    fleet.interval = 1;
    let upgradeAck: { id: string; reason?: string } | undefined;
    fleet.heartbeatHook = (ctx) => {
      if (fleet.heartbeats.filter((h) => h.clusterId === ctx.clusterId).length === 2)
        fleet.directive(ctx.clusterId, { id: "up-1", type: "upgrade", version: "9.9.9", image: "fleet-registry/agent:9.9.9" });
      const ack = ((ctx.body.acks as unknown[]) ?? []).find((a) => (a as { id?: string }).id === "up-1");
      if (ack && !upgradeAck) {
        upgradeAck = ack as { id: string; reason?: string };
        fleet.directive(ctx.clusterId, { id: "bye-1", type: "disconnect" });
      }
      return undefined;
    };
    try {
      const r = await run("cli.ts", [
        ...["--server", fleet.url.href, "--ca-file", path.join(dir, "ca.pem"), "--heartbeat-interval", "0.2"],
        ...["--kubeconfig", kubeconfig, "--name", "laptop-1", "--labels", "env=dev,region=eu-west-1"],
        ...["--token-file", tokenFile(dir), "--state-dir", path.join(dir, "laptop-state")],
      ]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /fleet-agent OUTSIDE_CLUSTER run from outside the cluster \(kubeconfig /);
      assert.match(r.stdout, /fleet-agent OUTSIDE_CLUSTER .*nothing there was scaled or deleted/);
      assert.match(r.stdout, /fleet-agent DISCONNECTED /);
      assert.deepEqual(api.deploymentState(), installed, "the in-cluster agent's Deployment as it was");
      assert.deepEqual([...api.roleBindings, ...api.clusterRoleBindings].sort(), [
        "fleet-agent",
        "fleet-system/fleet-agent",
        "kube-public/fleet-agent-cluster-info",
      ]);
      assert.deepEqual(api.writes(), [], "not one write to the cluster");
      assert.match(upgradeAck?.reason ?? "", /runs outside the cluster \(--kubeconfig\) and has no Deployment there to upgrade/);
    } finally {
      fleet.heartbeatHook = undefined;
      fleet.interval = 30;
      await api.stop();
    }
  });

  test("simulate: a small fleet registers over real TLS, heartbeats, and stops by itself at --duration", async () => {
    fleet.tokens.set(TOKEN, 100);
    const before = fleet.heartbeats.length;
    const started = Date.now();
    // Sized to pass on a busy CI machine: what matters is that it speaks the protocol and ends.
    const r = await run("simulator/simulate.ts", [
      "--server",
      fleet.url.href,
      "--clusters",
      "8",
      "--interval",
      "0.3",
      "--token",
      TOKEN,
      "--ca-fingerprint",
      certificateFingerprint(fleet.ca.pem),
      "--duration",
      "8",
      "--key-pool",
      "2",
      "--concurrency",
      "4",
      "--faults",
      "stop=0.25,degraded=0.25",
      "--prefix",
      "simt",
    ]);
    const elapsed = Date.now() - started;
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(elapsed < 45_000, `stopped by itself (${elapsed} ms)`);
    assert.match(r.stdout, /registered:\s+8\/8/);
    assert.match(r.stdout, /--duration 8s reached/);
    assert.match(r.stdout, /faults:.*degraded=2/);
    assert.ok(!r.stdout.includes("s3cr3t"), "the token is not printed");
    const beats = fleet.heartbeats.slice(before);
    const names = [...fleet.clusters.keys()].filter((n) => n.startsWith("simt-"));
    assert.equal(names.length, 8);
    for (const n of names) assert.match(n, /^simt-[a-z]+-[a-z]+-\d-(prod|staging|dev)-\d{4}$/);
    const perCluster = new Map<string, number>();
    for (const b of beats) perCluster.set(b.clusterId, (perCluster.get(b.clusterId) ?? 0) + 1);
    assert.equal(perCluster.size, 8, "every cluster heartbeated with its own certificate");
    assert.ok(
      beats.some((b) => (b.body.health as { apiServer: string }).apiServer !== "ok"),
      "degraded clusters report it",
    );
    for (const b of beats) assert.equal(heartbeatRequestSchema.safeParse(b.body).success, true);
  });
});
