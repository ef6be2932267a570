// Which port answers what, and who may read the metrics, against the real server (real HTTP on
// the console port, real TLS on the agent port), on the engine TEST_ENGINE selects: the agent
// endpoints that carry secrets answer only on the agent port (421 elsewhere, whatever the
// spelling or the headers), the CA on both; /api/metrics answers only a Host the server is known
// by, needs METRICS_TOKEN when it is set or the server listens beyond loopback, and a loopback peer
// otherwise; no header changes who the peer is.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PROTOCOL_HANDLERS } from "@/lib/server/agent-port/protocol-handlers";
import { makeCsr, selfSignedClientCert } from "../helpers/csr";
import { call, heartbeatBody, registerCluster, registrationBody } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

const METRICS_TOKEN = "metrics-token-for-edge-tests-0123456789";

/** A plain HTTP request to the console port, with no session and whatever headers an attacker likes. */
async function plain(server: FleetServer, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(`${server.consoleUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    text,
    json: json as { error?: string; message?: string } | null,
  };
}

const registration = (name: string) => registrationBody(name, { caFingerprint: `sha256:${"c".repeat(64)}` }).body;

/** A sample's value in /api/metrics (0 when absent), e.g. `fleet_heartbeats_total{code="200"}`. */
async function metric(server: FleetServer, sample: string): Promise<number> {
  const res = await plain(server, "GET", "/api/metrics");
  assert.equal(res.status, 200, res.text.slice(0, 200));
  const line = res.text.split("\n").find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

describe("agent endpoints only on the agent port", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer();
  });
  after(async () => {
    await server?.stop();
  });

  test("register, heartbeat and rotate answer 421 agent_port_required on the console port, whatever the spelling, method or headers", async () => {
    const minted = await server.api("POST", "/api/v1/registration-tokens", { name: "console-port", maxClusters: 1 });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    const token: string = minted.body.token;
    // Every header that could make the console port believe the request came in on the agent port
    // or carries a verified client certificate.
    const forged = {
      authorization: `Bearer ${token}`,
      "x-fleet-agent-port": "1",
      "x-fleet-client-fingerprint": `sha256:${"d".repeat(64)}`,
      "x-fleet-client-serial": "01",
      "x-fleet-remote-address": "127.0.0.1",
      "x-forwarded-proto": "https",
      "x-forwarded-port": String(server.agentPort),
      "x-forwarded-host": `127.0.0.1:${server.agentPort}`,
      "x-forwarded-client-cert": "Cert=%2D%2D%2D",
    };
    const paths = [
      "/api/agent/v1/register",
      "/api/agent/v1/register/",
      "/api/agent/v1/register?retry=1",
      "/api/agent/v1/register/?retry=1",
      "/API/Agent/v1/Register",
      "/api/agent/v1/%72egister",
      "//api/agent/v1/register",
      "/api/agent/v1/heartbeat",
      "/api/agent/v1/heartbeat/",
      "/api/agent/v1/heartbeat?x=1",
      "/api/agent/v1/rotate",
      "/api/agent/v1/rotate/",
      "/api/agent/v1/rotate?x=1",
    ];
    for (const path of paths) {
      for (const method of ["POST", "GET", "PUT"]) {
        const body =
          method === "GET"
            ? undefined
            : path.includes("register") || path.includes("Register")
              ? registration("over-http")
              : { csr: "x" };
        for (const headers of [{ authorization: `Bearer ${token}` }, forged]) {
          const res = await plain(server, method, path, headers, body);
          const what = `${method} ${path} ${headers === forged ? "(forged headers)" : ""}`;
          assert.equal(res.status, 421, `${what} -> ${res.status} ${res.text.slice(0, 200)}`);
          assert.match(res.type, /application\/json/, what);
          assert.equal(res.json?.error, "agent_port_required", what);
          assert.ok(res.json?.message && res.json.message.length > 10, what);
        }
      }
    }

    // Nothing above registered anything or used the token: it still registers once on the agent port.
    const clusters = await server.api("GET", "/api/v1/clusters?q=over-http");
    assert.deepEqual(clusters.body.items, []);
    const tokens = await server.api("GET", "/api/v1/registration-tokens");
    assert.equal(tokens.body.items.find((t: { id: string }) => t.id === minted.body.id).usedClusters, 0);
    // A query string is the same endpoint on the agent port.
    const reg = await server.agent("POST", "/api/agent/v1/register?via=next", registration("over-tls"), {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
  });

  test("register on the agent port is still 201 by the direct path, and heartbeat and rotate work there", async () => {
    const { client } = await registerCluster(server, "direct-tls");
    const hb = await server.agent(
      "POST",
      "/api/agent/v1/heartbeat?via=next",
      { agentVersion: "1.4.0", kubernetesVersion: "1.30.2", health: { apiServer: "ok", logs: true, metrics: true } },
      { client },
    );
    assert.equal(hb.status, 200, JSON.stringify(hb.body));
    const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr: makeCsr().csr }, { client });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  });

  test("a heartbeat with a query string is served and counted in /api/metrics like one without", async () => {
    const { client } = await registerCluster(server, "query-counted");
    for (const path of ["/api/agent/v1/heartbeat", "/api/agent/v1/heartbeat?via=query"]) {
      const [count, durations] = await Promise.all([
        metric(server, 'fleet_heartbeats_total{code="200"}'),
        metric(server, "fleet_heartbeat_duration_seconds_count"),
      ]);
      const hb = await server.agent("POST", path, heartbeatBody(), { client });
      assert.equal(hb.status, 200, `${path}: ${JSON.stringify(hb.body)}`);
      assert.equal(await metric(server, 'fleet_heartbeats_total{code="200"}'), count + 1, path);
      assert.equal(await metric(server, "fleet_heartbeat_duration_seconds_count"), durations + 1, path);
    }
    const refused = await metric(server, 'fleet_heartbeats_total{code="401"}');
    assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat?x=1", heartbeatBody())).status, 401);
    assert.equal(await metric(server, 'fleet_heartbeats_total{code="401"}'), refused + 1);
  });

  test("every entry of the protocol table is served on the agent port and refused 421 on the console port (public ones answer on both)", async () => {
    // Without credentials each entry answers what its kind of authentication says, which shows
    // the table's dispatcher (not a 404, 405 or 421) took it, with or without a query string.
    const refusal = { token: [401, "token_missing"], certificate: [401, "client_certificate_required"] } as const;
    for (const entry of PROTOCOL_HANDLERS) {
      for (const path of [entry.path, `${entry.path}?probe=1`]) {
        const body = entry.method === "GET" ? undefined : {};
        const what = `${entry.method} ${path}`;
        const viaAgent = await server.agent(entry.method, path, body);
        const viaConsole = await plain(server, entry.method, path, {}, body);
        if (entry.auth === "public") {
          assert.equal(viaAgent.status, 200, `${what} on the agent port`);
          assert.equal(viaConsole.status, 200, `${what} on the console port`);
          continue;
        }
        const [status, code] = refusal[entry.auth];
        assert.equal(viaAgent.status, status, `${what} on the agent port: ${JSON.stringify(viaAgent.body)}`);
        assert.equal(viaAgent.body.error, code, what);
        assert.equal(viaConsole.status, 421, `${what} on the console port: ${viaConsole.text.slice(0, 200)}`);
        assert.equal(viaConsole.json?.error, "agent_port_required", what);
      }
    }
  });

  test("GET /api/agent/v1/ca answers on both ports with the same certificate", async () => {
    const viaConsole = await plain(server, "GET", "/api/agent/v1/ca");
    assert.equal(viaConsole.status, 200);
    assert.equal(viaConsole.text, server.caPem);
    assert.equal((await plain(server, "GET", "/api/agent/v1/ca?fresh=1")).status, 200);
    const viaAgent = await server.agent("GET", "/api/agent/v1/ca");
    assert.equal(viaAgent.status, 200);
    assert.equal(viaAgent.body, server.caPem);
  });

  test("the agent port serves nothing but the protocol: the console, sign-in and the admin API answer 404 there, whatever the credential", async () => {
    const key = await server.api("POST", "/api/v1/api-keys", { name: "agent-port-probe", role: "admin" });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const bearer = { authorization: `Bearer ${key.body.key}` };
    const cookie = { cookie: await server.adminCookie(), origin: server.agentUrl };
    // Each of these works on the console port (a session or an API key) and must not on the agent port.
    const probes: [string, string, Record<string, string>, unknown?][] = [
      ["GET", "/", {}],
      ["GET", "/sign-in", {}],
      ["GET", "/api/auth/csrf", {}],
      ["GET", "/api/auth/providers", {}],
      ["POST", "/api/auth/callback/credentials", { "content-type": "application/x-www-form-urlencoded" }, "email=a&password=b"],
      ["GET", "/api/v1/clusters", bearer],
      ["GET", "/api/v1/clusters", cookie],
      ["POST", "/api/v1/registration-tokens", bearer, { name: "minted-on-agent-port", maxClusters: 1 }],
      ["GET", "/api/healthz", {}],
      ["GET", "/api/metrics", {}],
      ["GET", "/api/openapi", {}],
    ];
    for (const [method, path, headers, body] of probes) {
      const raw = typeof body === "string" ? { rawBody: body } : {};
      const res = await server.agent(method, path, typeof body === "string" ? undefined : body, { headers, ...raw });
      assert.equal(res.status, 404, `${method} ${path} on the agent port: ${res.status}`);
      assert.equal(res.body.error, "not_found", `${method} ${path}`);
    }
    const tokens = await server.api("GET", "/api/v1/registration-tokens");
    assert.ok(!tokens.body.items.some((t: { name: string }) => t.name === "minted-on-agent-port"), "nothing was minted");
    // The same API key works where the API lives.
    assert.equal((await plain(server, "GET", "/api/v1/clusters", bearer)).status, 200);
  });

  test("without METRICS_TOKEN, /api/metrics answers a loopback peer, and forwarded headers change nothing", async () => {
    const claims = {
      "x-forwarded-for": "203.0.113.9",
      "x-real-ip": "203.0.113.9",
      forwarded: "for=203.0.113.9",
      "x-fleet-remote-address": "203.0.113.9",
    };
    for (const headers of [{}, claims]) {
      const res = await plain(server, "GET", "/api/metrics", headers);
      assert.equal(res.status, 200, res.text.slice(0, 200));
      assert.match(res.text, /^# (HELP|TYPE) fleet_/m);
    }
  });

  test("/api/metrics answers only a Host the server is known by: a rebound name from a loopback peer is 421", async () => {
    // A page on evil.example whose name now resolves to 127.0.0.1: the browser sends its own name.
    for (const host of ["evil.example", `evil.example:${server.consolePort}`, `127.0.0.1.evil.example:${server.consolePort}`]) {
      const res = await call(`${server.consoleUrl}/api/metrics`, "GET", { headers: { host } });
      assert.equal(res.status, 421, `${host}: ${String(res.body).slice(0, 200)}`);
      assert.equal(res.body.error, "host_not_served");
    }
    for (const host of [`localhost:${server.consolePort}`, `127.0.0.1:${server.consolePort}`]) {
      assert.equal((await call(`${server.consoleUrl}/api/metrics`, "GET", { headers: { host } })).status, 200, host);
    }
  });

  test("listening on every address without METRICS_TOKEN, /api/metrics is 401 even for a loopback peer, and the start log says so", async () => {
    // Beyond loopback a production server needs its public URL (sign-in never takes it from Host).
    await server.restart({ HOST: "0.0.0.0", NEXTAUTH_URL: `http://127.0.0.1:${server.consolePort}` });
    const res = await plain(server, "GET", "/api/metrics");
    assert.equal(res.status, 401, res.text.slice(0, 200));
    assert.equal(res.json?.error, "unauthenticated");
    assert.match(res.json?.message ?? "", /METRICS_TOKEN/);
    assert.doesNotMatch(res.text, /fleet_/);
    assert.match(server.logs(), /METRICS_TOKEN is not set and the server listens on 0\.0\.0\.0/);
  });
});

describe("/api/metrics with METRICS_TOKEN", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer({ METRICS_TOKEN });
  });
  after(async () => {
    await server?.stop();
  });

  test("no token or a wrong one: 401 unauthenticated, even from loopback; the right bearer token: 200", async () => {
    for (const authorization of [
      undefined,
      `Bearer ${METRICS_TOKEN}x`,
      `Bearer ${METRICS_TOKEN.slice(1)}`,
      `Basic ${METRICS_TOKEN}`,
      METRICS_TOKEN,
    ]) {
      const headers: Record<string, string> = { "x-forwarded-for": "127.0.0.1", "x-fleet-remote-address": "127.0.0.1" };
      if (authorization) headers.authorization = authorization;
      const res = await plain(server, "GET", "/api/metrics", headers);
      assert.equal(res.status, 401, `${authorization}: ${res.text.slice(0, 200)}`);
      assert.equal(res.json?.error, "unauthenticated");
      assert.doesNotMatch(res.text, /fleet_/);
    }
    // A console session is no metrics token either.
    const withSession = await plain(server, "GET", "/api/metrics", { cookie: await server.adminCookie() });
    assert.equal(withSession.status, 401);
    const ok = await plain(server, "GET", "/api/metrics", { authorization: `Bearer ${METRICS_TOKEN}` });
    assert.equal(ok.status, 200, ok.text.slice(0, 200));
    assert.match(ok.type, /text\/plain/);
    assert.match(ok.text, /^# TYPE fleet_clusters gauge$/m);
  });
});

describe("a TLS-terminating proxy's forwarded client certificate (X-Forwarded-Client-Cert)", () => {
  let server: FleetServer;
  const proxy = selfSignedClientCert();
  const forwarding = (cert: string) => ({ "x-forwarded-client-cert": `By=spiffe://edge;Cert="${encodeURIComponent(cert)}"` });
  before(async () => {
    // Trusted for X-Forwarded-For, as the Kubernetes base once trusted its whole pod network.
    server = await startFleetServer({ TRUSTED_PROXY_CIDRS: "127.0.0.1/32" });
  });
  after(async () => {
    await server?.stop();
  });

  test("a peer trusted only for X-Forwarded-For cannot be a cluster by sending its (public) certificate: heartbeat and rotate 401", async () => {
    const { client } = await registerCluster(server, "xfcc-victim");
    const headers = forwarding(client.cert);
    const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { headers });
    assert.equal(hb.status, 401, JSON.stringify(hb.body));
    assert.equal(hb.body.error, "client_certificate_required");
    const takeover = await server.agent("POST", "/api/agent/v1/rotate", { csr: makeCsr().csr }, { headers });
    assert.equal(takeover.status, 401, JSON.stringify(takeover.body));
    // The real agent is untouched.
    assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client })).status, 200);
  });

  test("from a proxy in TRUSTED_CLIENT_CERT_PROXY_CIDRS presenting its pinned certificate, the forwarded certificate is the cluster, for rotate too", async () => {
    await server.restart({ TRUSTED_CLIENT_CERT_PROXY_CIDRS: "127.0.0.1/32", CLIENT_CERT_PROXY_FINGERPRINTS: proxy.fingerprint });
    const { client } = await registerCluster(server, "xfcc-proxied");
    const headers = forwarding(client.cert);
    // The right address alone is not enough: the proxy proves itself with its own certificate.
    const unproven = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { headers });
    assert.equal(unproven.status, 401, JSON.stringify(unproven.body));
    assert.equal((await server.agent("POST", "/api/agent/v1/rotate", { csr: makeCsr().csr }, { headers })).status, 401);

    const viaProxy = { headers, client: { cert: proxy.cert, key: proxy.key } };
    const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), viaProxy);
    assert.equal(hb.status, 200, JSON.stringify(hb.body));
    const { csr, key } = makeCsr();
    const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr }, viaProxy);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const direct = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), {
      client: { cert: rotated.body.certificate, key },
    });
    assert.equal(direct.status, 200, "the rotated certificate is the same cluster's");

    // Envoy's APPEND_FORWARD puts the client's own element first: a header with two is refused.
    const appended = {
      "x-forwarded-client-cert": `Cert="${encodeURIComponent(client.cert)}",${headers["x-forwarded-client-cert"]}`,
    };
    const two = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { ...viaProxy, headers: appended });
    assert.equal(two.status, 400, JSON.stringify(two.body));
    assert.equal(two.body.error, "invalid_request");
  });
});
