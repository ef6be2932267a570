// The agent against a tiny local HTTPS server that answers per docs/protocol.md (127.0.0.1, port 0):
// real TLS, real client certificates, real CSRs. End-to-end tests against the real server
// live elsewhere; this checks the agent's own behaviour on the wire.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import { after, before, describe, test } from "node:test";
import forge from "node-forge";
import { FleetAgent, type FleetAgentOptions } from "@/lib/agent/agent";
import { FakeClock } from "@/lib/agent/clock";
import { certificateFingerprint, certificateMatchesKey, generateRsaKeyPair } from "@/lib/agent/csr";
import { MemoryLogger, formatEntry } from "@/lib/agent/log";
import type { ClusterBackend } from "@/lib/agent/cluster-backend";
import { preflight } from "@/lib/agent/preflight";
import { SecretStateStore, secretTokenSource } from "@/lib/agent/kube/secret-state";
import { FileStateStore } from "@/lib/agent/state";
import { simulatedBackend } from "@/lib/agent/simulator/simulated-backend";
import { simulatedClusterUid } from "@/lib/agent/simulator/simulated-cluster";
import { fileTokenSource, staticTokenSource } from "@/lib/agent/token";
import { heartbeatRequestSchema, registerRequestSchema } from "@/lib/domain/agent-protocol";
import { FakeKubeApi } from "../../helpers/fake-kube-api";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { eksCluster } from "../../helpers/kube-clusters";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const TOKEN = "frt_testpublicid_" + "s3cr3t".repeat(6);

// ---- a fake fleet: CA, server certificate, protocol handlers --------------------------------

interface Ca {
  key: forge.pki.rsa.PrivateKey;
  cert: forge.pki.Certificate;
  pem: string;
}

async function makeCa(cn: string): Promise<Ca> {
  const keys = await generateRsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = "01" + crypto.randomBytes(8).toString("hex");
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  cert.setSubject([{ name: "commonName", value: cn }]);
  cert.setIssuer([{ name: "commonName", value: cn }]);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
  ]);
  const key = forge.pki.privateKeyFromPem(keys.privateKeyPem) as forge.pki.rsa.PrivateKey;
  cert.sign(key, forge.md.sha256.create());
  return { key, cert, pem: forge.pki.certificateToPem(cert) };
}

function issue(
  ca: Ca,
  publicKey: forge.pki.PublicKey,
  cn: string,
  opts: { hosts?: string[]; notBefore?: number; notAfter?: number } = {},
): { pem: string; serial: string } {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  const serial = "02" + crypto.randomBytes(8).toString("hex");
  cert.serialNumber = serial;
  cert.validity.notBefore = new Date(opts.notBefore ?? Date.now() - 60_000);
  cert.validity.notAfter = new Date(opts.notAfter ?? Date.now() + 86_400_000);
  cert.setSubject([{ name: "commonName", value: cn }]);
  cert.setIssuer(ca.cert.subject.attributes);
  const ext: object[] = [{ name: "basicConstraints", cA: false }];
  if (opts.hosts) {
    ext.push({ name: "extKeyUsage", serverAuth: true });
    ext.push({
      name: "subjectAltName",
      altNames: opts.hosts.map((h) => (net.isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    });
  } else {
    ext.push({ name: "extKeyUsage", clientAuth: true });
  }
  cert.setExtensions(ext);
  cert.sign(ca.key, forge.md.sha256.create());
  return { pem: forge.pki.certificateToPem(cert), serial: serial.toUpperCase() };
}

/** The SPKI PEM of a CSR's public key. */
function csrPublicKey(csrPem: string): string {
  return forge.pki.publicKeyToPem(forge.pki.certificationRequestFromPem(csrPem).publicKey!).replace(/\r\n/g, "\n");
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> };
interface HeartbeatCtx {
  clusterId: string;
  serial: string;
  body: Record<string, unknown>;
  n: number;
}

class FakeFleet {
  readonly ca: Ca;
  private server!: https.Server;
  url!: URL;
  /** token -> uses left */
  tokens = new Map<string, number>([[TOKEN, 1]]);
  registers: Array<{ auth: string | undefined; body: Record<string, unknown> }> = [];
  heartbeats: HeartbeatCtx[] = [];
  rotations = 0;
  clusters = new Map<string, { id: string; fingerprint: string; serial: string; publicKey: string }>();
  revoked = new Set<string>();
  gone = new Set<string>();
  directives = new Map<string, Array<Record<string, unknown>>>();
  interval = 30;
  desiredPolicyRevision: string | null = null;
  /** Validity of issued client certificates. */
  certTimes: () => { notBefore: number; notAfter: number } = () => ({
    notBefore: Date.now() - 60_000,
    notAfter: Date.now() + 86_400_000,
  });
  registerHook?: (body: Record<string, unknown>, n: number) => Reply | undefined;
  heartbeatHook?: (ctx: HeartbeatCtx) => Reply | undefined;
  /** Answer heartbeat number n (1-based, this fleet's count) only after this many ms. */
  heartbeatDelayMs?: (n: number) => number;
  /** The client port of every heartbeat request: one port means one connection. */
  heartbeatPorts: number[] = [];
  caAsJson = false;
  /** Registrations to carry out and then answer with a dropped connection (a lost answer). */
  dropRegisterAnswers = 0;

  private constructor(ca: Ca) {
    this.ca = ca;
  }

  static async start(options: { hosts?: string[]; ca?: Ca } = {}): Promise<FakeFleet> {
    const fleet = new FakeFleet(options.ca ?? (await makeCa("fake fleet CA")));
    const serverKeys = await generateRsaKeyPair();
    const serverCert = issue(fleet.ca, forge.pki.publicKeyFromPem(serverKeys.publicKeyPem), "fleet agent endpoint", {
      hosts: options.hosts ?? ["127.0.0.1", "localhost"],
    });
    fleet.server = https.createServer(
      { key: serverKeys.privateKeyPem, cert: serverCert.pem, ca: fleet.ca.pem, requestCert: true, rejectUnauthorized: false },
      (req, res) => void fleet.handle(req, res),
    );
    await new Promise<void>((resolve) => fleet.server.listen(0, "127.0.0.1", resolve));
    const port = (fleet.server.address() as net.AddressInfo).port;
    fleet.url = new URL(`https://127.0.0.1:${port}`);
    return fleet;
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  directive(clusterId: string, d: Record<string, unknown>) {
    this.directives.set(clusterId, [...(this.directives.get(clusterId) ?? []), d]);
  }

  private reply(res: http.ServerResponse, r: Reply) {
    res.writeHead(r.status, { "content-type": "application/json", ...r.headers });
    res.end(JSON.stringify(r.body));
  }

  private error(status: number, error: string, message = error, headers?: Record<string, string>): Reply {
    return { status, body: { error, message }, headers };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    if (req.method === "GET" && req.url === "/api/agent/v1/ca") {
      if (this.caAsJson) return this.reply(res, { status: 200, body: { certificate: this.ca.pem } });
      res.writeHead(200, { "content-type": "application/x-pem-file" });
      return res.end(this.ca.pem);
    }
    if (req.method === "POST" && req.url === "/api/agent/v1/register") {
      const reply = this.register(req, body);
      if (reply.status === 201 && this.dropRegisterAnswers > 0) {
        this.dropRegisterAnswers -= 1;
        return res.socket?.destroy();
      }
      return this.reply(res, reply);
    }
    if (req.method === "POST" && req.url === "/api/agent/v1/heartbeat") {
      this.heartbeatPorts.push(req.socket.remotePort ?? 0);
      const delay = this.heartbeatDelayMs?.(this.heartbeatPorts.length) ?? 0;
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      return this.reply(res, this.heartbeat(req, body));
    }
    if (req.method === "POST" && req.url === "/api/agent/v1/rotate") return this.reply(res, this.rotate(req, body));
    return this.reply(res, this.error(404, "not_found"));
  }

  private register(req: http.IncomingMessage, body: Record<string, unknown>): Reply {
    this.registers.push({ auth: req.headers.authorization, body });
    const hooked = this.registerHook?.(body, this.registers.length);
    if (hooked) return hooked;
    const token = req.headers.authorization?.replace(/^Bearer /, "");
    if (!token) return this.error(401, "token_missing");
    const uses = this.tokens.get(token);
    if (uses === undefined) return this.error(401, "token_invalid");
    const csr = forge.pki.certificationRequestFromPem(String(body.csr));
    if (!csr.verify()) return this.error(400, "invalid_csr");
    const name = String(body.name);
    const existing = this.clusters.get(name);
    // Kept key (docs/protocol.md, re-registration: kept key): the key of the current certificate proves the
    // retry; the token may be exhausted and no use is consumed.
    const keptKey = !!existing && existing.publicKey === csrPublicKey(String(body.csr));
    if (!keptKey && uses <= 0) return this.error(401, "token_exhausted");
    if (existing && existing.fingerprint !== body.caFingerprint) return this.error(409, "cluster_conflict");
    if (!keptKey) this.tokens.set(token, uses - 1);
    const id = existing?.id ?? "c_" + crypto.randomBytes(6).toString("hex");
    if (existing) this.revoked.add(existing.serial);
    const cert = issue(this.ca, csr.publicKey!, id, this.certTimes());
    this.clusters.set(name, {
      id,
      fingerprint: String(body.caFingerprint),
      serial: cert.serial,
      publicKey: csrPublicKey(String(body.csr)),
    });
    return {
      status: 201,
      body: {
        clusterId: id,
        certificate: cert.pem,
        caCertificate: this.ca.pem,
        heartbeatIntervalSeconds: this.interval,
        heartbeatPath: "/api/agent/v1/heartbeat",
      },
    };
  }

  private identity(req: http.IncomingMessage): { clusterId: string; serial: string } | Reply {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    if (!socket.authorized || !peer?.subject) return this.error(401, "client_certificate_required");
    const serial = peer.serialNumber.toUpperCase();
    if (this.revoked.has(serial)) return this.error(403, "certificate_revoked");
    const clusterId = String(peer.subject.CN);
    if (this.gone.has(clusterId)) return this.error(410, "cluster_deregistered");
    return { clusterId, serial };
  }

  private heartbeat(req: http.IncomingMessage, body: Record<string, unknown>): Reply {
    const who = this.identity(req);
    if ("status" in who) return who;
    const ctx: HeartbeatCtx = { ...who, body, n: this.heartbeats.length + 1 };
    this.heartbeats.push(ctx);
    const hooked = this.heartbeatHook?.(ctx);
    if (hooked) return hooked;
    const acks = new Set((body.acks as string[] | undefined) ?? []);
    const pending = (this.directives.get(who.clusterId) ?? []).filter((d) => !acks.has(String(d.id)));
    this.directives.set(who.clusterId, pending);
    return {
      status: 200,
      body: {
        status: "Ready",
        heartbeatIntervalSeconds: this.interval,
        desiredPolicyRevision: this.desiredPolicyRevision,
        directives: pending,
      },
    };
  }

  private rotate(req: http.IncomingMessage, body: Record<string, unknown>): Reply {
    const who = this.identity(req);
    if ("status" in who) return who;
    const csr = forge.pki.certificationRequestFromPem(String(body.csr));
    if (!csr.verify()) return this.error(400, "invalid_csr");
    this.rotations += 1;
    const cert = issue(this.ca, csr.publicKey!, who.clusterId);
    return { status: 200, body: { certificate: cert.pem } };
  }
}

// ---- helpers ------------------------------------------------------------------------------

const tmpDirs: string[] = [];
after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fleet-agent-test-"));
  tmpDirs.push(dir);
  return dir;
}

function tokenFile(dir: string, token = TOKEN): string {
  const file = path.join(dir, "token");
  fs.writeFileSync(file, token + "\n", { mode: 0o600 });
  return file;
}

const CLUSTER_FP = "sha256:" + "ab".repeat(32);

/** A simulated cluster's agent (`clusterUid` forces the UID its simulated cluster reports). */
function agentOptions(
  fleet: FakeFleet,
  stateDir: string,
  { clusterUid, ...extra }: Partial<FleetAgentOptions> & { clusterUid?: string } = {},
): FleetAgentOptions {
  const name = extra.name ?? "prod-eu-1";
  return {
    server: fleet.url,
    name,
    cluster: simulatedBackend({ name, clusterUid }),
    labels: { env: "prod", region: "eu-west-1" },
    store: new FileStateStore(stateDir),
    trust: { caPem: fleet.ca.pem },
    clusterCaFingerprint: CLUSTER_FP,
    clock: new FakeClock(),
    random: () => 0.5,
    requestTimeoutMs: 5_000,
    ...extra,
  };
}

function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

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
    fleet.heartbeatHook = (ctx) =>
      ctx.n === 2
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
      assert.equal(fleet.heartbeats.length, 2, "no retry after the refusal");
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

// ---- in a cluster: state and token in Secrets of the loopback Kubernetes API ----------------

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
