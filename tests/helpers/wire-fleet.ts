// A tiny local HTTPS fleet that answers per docs/protocol.md (127.0.0.1, port 0), for the agent's
// engine-free tests: real TLS, real client certificates, real CSRs.
import crypto from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import forge from "node-forge";
import { type FleetAgentOptions } from "@/lib/agent/agent";
import { FakeClock } from "@/lib/agent/clock";
import { generateRsaKeyPair } from "@/lib/agent/csr";
import { FileStateStore } from "@/lib/agent/state";
import { simulatedBackend } from "@/lib/agent/simulator/simulated-backend";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const TOKEN = "frt_testpublicid_" + "s3cr3t".repeat(6);

// ---- a fake fleet: CA, server certificate, protocol handlers --------------------------------

export interface Ca {
  key: forge.pki.rsa.PrivateKey;
  cert: forge.pki.Certificate;
  pem: string;
}

export async function makeCa(cn: string): Promise<Ca> {
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

export function issue(
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
export function csrPublicKey(csrPem: string): string {
  return forge.pki.publicKeyToPem(forge.pki.certificationRequestFromPem(csrPem).publicKey!).replace(/\r\n/g, "\n");
}

export type Reply = { status: number; body: unknown; headers?: Record<string, string> };
export interface HeartbeatCtx {
  clusterId: string;
  serial: string;
  body: Record<string, unknown>;
  n: number;
}

export class FakeFleet {
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
/** Removes the directories tmpDir made (each test file calls it in `after`). */
export function removeTmpDirs() {
  tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
}

export function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fleet-agent-test-"));
  tmpDirs.push(dir);
  return dir;
}

export function tokenFile(dir: string, token = TOKEN): string {
  const file = path.join(dir, "token");
  fs.writeFileSync(file, token + "\n", { mode: 0o600 });
  return file;
}

export const CLUSTER_FP = "sha256:" + "ab".repeat(32);

/** A simulated cluster's agent (`clusterUid` forces the UID its simulated cluster reports). */
export function agentOptions(
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

export function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}
