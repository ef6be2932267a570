// The agent's side of the protocol for tests, benches and e2e specs: one HTTP(S) call (mutual TLS
// when given a client certificate), the protocol's usual request bodies, and "a registered
// cluster" (mint a token, register with a fresh key, keep the key) in one call.
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import { makeCsr, type CsrOptions } from "./csr";
import type { FleetServer } from "./fleet-server";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies of many shapes, asserted field by field
export type AgentResponse = { status: number; body: any; headers: Record<string, string | string[] | undefined> };
export type ClientCert = { cert: string; key: string };

export type CallOptions = {
  headers?: Record<string, string>;
  /** Sent as JSON (content-type application/json unless `headers` name one). */
  body?: unknown;
  /** Sent as is instead of `body` (content-type application/json unless `headers` name one). */
  rawBody?: string | Buffer;
  /** The CA (PEM, or a bundle) the server's certificate must chain to. */
  ca?: string;
  /** Mutual TLS with this certificate and key. */
  client?: ClientCert;
  /** false: accept any server certificate (only to fetch the CA it is checked against). */
  rejectUnauthorized?: boolean;
  /** Send on this agent's connections (its own TLS options apply) instead of a new connection. */
  agent?: http.Agent;
};

/** One request on its own connection (or `opts.agent`'s); the answer's body parsed as JSON when it is JSON, else text. */
export function call(url: string, method: string, opts: CallOptions = {}): Promise<AgentResponse> {
  const u = new URL(url);
  const mod = u.protocol === "https:" ? https : http;
  const headers = { ...opts.headers };
  const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (payload !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  const tls: https.RequestOptions =
    u.protocol === "https:"
      ? {
          ...(opts.ca ? { ca: opts.ca } : {}),
          ...(opts.client ?? {}),
          ...(opts.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
        }
      : {};
  return new Promise((resolve, reject) => {
    const req = mod.request(
      {
        method,
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        headers,
        ...(opts.agent ? { agent: opts.agent } : { agent: false, ...tls }),
      },
      (res: http.IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
        });
      },
    );
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export const SYSTEM_POOL = {
  name: "system",
  nodeCount: 3,
  readyNodes: 3,
  kubeletVersion: "1.30.2",
  instanceType: "m5.large",
  cpuCores: 6,
  memoryGiB: 24,
};

/** A healthy cluster's heartbeat (one node pool, no acks); `over` replaces top-level fields. */
export const heartbeatBody = (over: Record<string, unknown> = {}) => ({
  agentVersion: "1.4.0",
  kubernetesVersion: "1.30.2",
  nodePools: [SYSTEM_POOL],
  workloads: { pods: 120, namespaces: 14 },
  health: { apiServer: "ok", logs: true, metrics: true },
  policy: { appliedRevision: null },
  acks: [],
  ...over,
});

/**
 * A registration body for `name` with a CSR for a fresh key; `over` replaces top-level fields. A
 * CSR in `over` is sent as is (no key is made: `key` is then "", the caller holds its key).
 */
export function registrationBody(name: string, over: Record<string, unknown> = {}, csrOptions: CsrOptions = {}) {
  const { csr, key } = typeof over.csr === "string" ? { csr: over.csr, key: "" } : makeCsr(csrOptions);
  return {
    key,
    body: {
      name,
      apiServerUrl: `https://api.${name}.example:6443`,
      caFingerprint: `sha256:${"a".repeat(64)}`,
      agentVersion: "1.4.0",
      kubernetesVersion: "1.30.2",
      labels: { env: "prod", region: "eu-west-1" },
      csr,
      ...over,
    },
  };
}

type Server = Pick<FleetServer, "api" | "agent">;

/** POST /api/v1/registration-tokens as the admin; asserts 201. */
export async function mintToken(server: Server, body: Record<string, unknown> = {}) {
  const res = await server.api("POST", "/api/v1/registration-tokens", { name: "test", ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as {
    id: string;
    token: string;
    maxClusters: number;
    usedClusters: number;
    status: string;
    clusterId: string | null;
    requireApproval: boolean;
  };
}

/** POST /api/agent/v1/register with `token` as the bearer. */
export function registerWith(server: Server, token: string, body: unknown, path = "/api/agent/v1/register") {
  return server.agent("POST", path, body, { headers: { authorization: `Bearer ${token}` } });
}

/** A 503 overloaded with Retry-After: the protocol's "come back later", an answer rather than a failure. */
export const toldToWait = (a: AgentResponse) =>
  a.status === 503 && a.body?.error === "overloaded" && a.headers["retry-after"] !== undefined;

/**
 * Sends until the answer is not a 503 (or 429), waiting Retry-After with jitter in between as an
 * agent does (docs/protocol.md, "Overload and outages"); every 503 must carry Retry-After.
 * `first` receives the first answer, so a drill can count how many were asked to wait.
 */
export async function rideOut(send: () => Promise<AgentResponse>, deadline: number, first?: (r: AgentResponse) => void) {
  for (let attempt = 0; ; attempt++) {
    const res = await send();
    if (attempt === 0) first?.(res);
    if (res.status !== 503 && res.status !== 429) return res;
    const wait = Number(res.headers["retry-after"]);
    assert.ok(Number.isFinite(wait) && wait >= 0, `a ${res.status} without Retry-After: ${JSON.stringify(res.body)}`);
    if (Date.now() + wait * 1000 > deadline) return res;
    await new Promise((r) => setTimeout(r, wait * 1000 * (1 + Math.random())));
  }
}

export type RegisteredCluster = { clusterId: string; client: ClientCert; token: string; tokenId: string; res: AgentResponse };

/**
 * A cluster registered through the protocol: a one-use token (or `opts.token`), a fresh key, and
 * the body `opts.body` amends; a 503 overloaded is ridden out; asserts 201.
 */
export async function registerCluster(
  server: Server,
  name: string,
  opts: { body?: Record<string, unknown>; token?: { id: string; token: string } } = {},
): Promise<RegisteredCluster> {
  const t = opts.token ?? (await mintToken(server, { name, maxClusters: 1 }));
  const { body, key } = registrationBody(name, opts.body);
  const res = await rideOut(() => registerWith(server, t.token, body), Date.now() + 60_000);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { clusterId: res.body.clusterId, client: { cert: res.body.certificate, key }, token: t.token, tokenId: t.id, res };
}
