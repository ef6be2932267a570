// Odd bytes at the edge, on both engines: 3,000 fuzzed bodies on register,
// heartbeat and rotate never get a 5xx and the server stays up; text the databases cannot store
// (NUL, lone surrogates) is refused with 400 naming the field, on the agent port and in the admin
// API, and the registration attempts log keeps such an attempt with the characters escaped.
// Bounded: the fuzzing takes well under a minute here (requests on 8 kept-alive connections).
import assert from "node:assert/strict";
import https from "node:https";
import { after, before, test } from "node:test";
import { seededRandom } from "@/lib/agent/clock";
import { makeCsr } from "../helpers/csr";
import {
  call,
  heartbeatBody,
  mintToken,
  registerCluster,
  registerWith,
  registrationBody,
  toldToWait,
  type AgentResponse,
  type ClientCert,
} from "../helpers/agent-client";
import { signIn } from "../helpers/console-session";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;
let heartbeater: ClientCert;
let rotator: ClientCert;
let token: string;

before(async () => {
  server = await startFleetServer({
    REGISTRATION_RATE_PER_MINUTE: "100000",
    REGISTRATION_RATE_BURST: "10000",
    LOG_LEVEL: "warn",
  });
  heartbeater = (await registerCluster(server, "fuzz-heartbeat")).client;
  rotator = (await registerCluster(server, "fuzz-rotate")).client;
  // One use: a fuzzed body that happens to be valid registers once, then the token is used up.
  token = (await mintToken(server, { name: "fuzz", maxClusters: 1 })).token;
});
after(async () => {
  await server?.stop();
});

const SEED = 12;
const PER_ENDPOINT = 1000;

type Fuzzed = { text: string; contentType: string | null };

/** Values of every JSON type and the shapes databases and parsers trip on. */
function oddValue(r: () => number): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  return pick<() => unknown>([
    () => null,
    () => true,
    () => pick([0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, Number.MIN_VALUE]),
    () => "x".repeat(pick([0, 1, 64, 65, 101, 501, 2049, 16_385, 40_000])),
    () => pick(["a\u0000b", "\u0000", "x\ud800y", "\udfff", "🚀\ud83d", "\u202e", "\ufeff", "%00", "'; DROP TABLE x;--"]),
    () => pick([[], {}, [null], { "": 1 }, { __proto__: 1 }, ["a\u0000"]]),
    () => ({ nested: oddValue(r) }),
  ])();
}

/** Replaces, adds or removes one field somewhere in `body` (in place). */
function mutate(body: unknown, r: () => number): void {
  if (!body || typeof body !== "object") return;
  const keys = Object.keys(body);
  const key = keys.length && r() < 0.85 ? keys[Math.floor(r() * keys.length)]! : `extra${Math.floor(r() * 3)}`;
  const target = body as Record<string, unknown>;
  const current = target[key];
  if (current && typeof current === "object" && r() < 0.5) return mutate(current, r);
  if (r() < 0.1) delete target[key];
  else target[key] = oddValue(r);
}

/** One fuzzed request: a valid body bent, or text that is not JSON, or the wrong content type. */
function fuzz(valid: () => unknown, r: () => number): Fuzzed {
  const kind = r();
  const json = (v: unknown) => JSON.stringify(v);
  if (kind < 0.55) {
    const body = valid();
    for (let n = 1 + Math.floor(r() * 3); n > 0; n--) mutate(body, r);
    return { text: json(body), contentType: "application/json" };
  }
  if (kind < 0.7) {
    // Malformed JSON: a valid body cut short, with a stray byte, or invalid UTF-8.
    const text = json(valid());
    const cut = text.slice(0, Math.floor(r() * text.length));
    const variants = [cut, `${cut}\u0000`, text.replace(/":/, '"'), `${text},`, `\ufeff${text}`, "{", "nul", "[1,]", '{"a":01}'];
    return { text: variants[Math.floor(r() * variants.length)]!, contentType: "application/json" };
  }
  if (kind < 0.78) {
    // Numbers JSON allows and JavaScript rounds: beyond double range, or very long.
    const big = ["1e400", "-1e400", "9".repeat(400), "0.".concat("0".repeat(300), "1"), "1e-400"][Math.floor(r() * 5)]!;
    return { text: json(valid()).replace(/:(\d+|"[^"]*")/, `:${big}`), contentType: "application/json" };
  }
  if (kind < 0.86) {
    // Deep nesting, in a known field or as the whole body.
    const depth = [100, 1000, 5000][Math.floor(r() * 3)]!;
    const deep = "[".repeat(depth) + "]".repeat(depth);
    return { text: r() < 0.5 ? deep : json(valid()).replace(/:(\[|\{|")/, `:${deep},"x":$1`), contentType: "application/json" };
  }
  if (kind < 0.93) {
    // Escapes the databases cannot store, written as JSON escapes in a string value.
    const escapes = ["\\u0000", "\\ud800", "\\udc00", "a\\u0000", "\\ud83d\\u0000"];
    const e = escapes[Math.floor(r() * escapes.length)]!;
    return { text: json(valid()).replace(/:"([^"]*)"/, `:"$1${e}"`), contentType: "application/json" };
  }
  const types = [
    null,
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
    "application/jsonx",
    "",
  ];
  return { text: json(valid()), contentType: types[Math.floor(r() * types.length)]! };
}

type Endpoint = { path: string; valid: () => unknown; agent: https.Agent; headers: Record<string, string> };

async function send(endpoint: Endpoint, f: Fuzzed): Promise<AgentResponse | Error> {
  const headers: Record<string, string> = { ...endpoint.headers };
  // A content type of "" sends none at all (call() defaults to JSON only when none is named).
  if (f.contentType !== null) headers["content-type"] = f.contentType || "application/octet-stream";
  if (f.contentType === "") delete headers["content-type"];
  return call(`${server.agentUrl}${endpoint.path}`, "POST", { agent: endpoint.agent, headers, rawBody: f.text }).catch(
    (err: Error) => err,
  );
}

test(
  "3,000 fuzzed bodies on register, heartbeat and rotate: no 5xx, the server stays up, a normal heartbeat still works",
  { timeout: 180_000 },
  async () => {
    const started = performance.now();
    const keepAlive = (client?: ClientCert) => new https.Agent({ keepAlive: true, maxSockets: 8, ca: server.caPem, ...client });
    const { body: registration } = registrationBody("fuzz-new");
    // Rotate's CSR is never valid here (a valid one would retire the certificate the fuzzing uses).
    const brokenCsr = makeCsr({ tamper: true }).csr;
    const endpoints: Endpoint[] = [
      {
        path: "/api/agent/v1/register",
        valid: () => structuredClone(registration),
        agent: keepAlive(),
        headers: { authorization: `Bearer ${token}` },
      },
      {
        path: "/api/agent/v1/heartbeat",
        valid: () => structuredClone(heartbeatBody()),
        agent: keepAlive(heartbeater),
        headers: {},
      },
      { path: "/api/agent/v1/rotate", valid: () => ({ csr: brokenCsr }), agent: keepAlive(rotator), headers: {} },
    ];
    const failures: string[] = [];
    const byStatus = new Map<number | string, number>();
    const took: Record<string, number> = {};
    try {
      for (const [e, endpoint] of endpoints.entries()) {
        const endpointStarted = performance.now();
        const r = seededRandom(SEED * 10 + e);
        const bodies = Array.from({ length: PER_ENDPOINT }, () => fuzz(endpoint.valid, r));
        let next = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next < bodies.length) {
              const i = next++;
              const res = await send(endpoint, bodies[i]!);
              const status = res instanceof Error ? res.message : res.status;
              byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
              // 503 overloaded with Retry-After is the protocol's answer while the event loop lags
              // (a busy machine); any other 5xx is a failure.
              if (res instanceof Error || (res.status >= 500 && !toldToWait(res))) {
                // Seed and index replay it: fuzz(endpoint.valid, seededRandom(SEED * 10 + e)) i + 1 times.
                failures.push(
                  `${endpoint.path} #${i} (seed ${SEED * 10 + e}): ${status} ${JSON.stringify(bodies[i]!.text.slice(0, 200))}`,
                );
              }
            }
          }),
        );
        took[endpoint.path.split("/").pop()!] = Math.round(performance.now() - endpointStarted);
      }
    } finally {
      endpoints.forEach((e) => e.agent.destroy());
    }
    assert.deepEqual(
      failures.slice(0, 10),
      [],
      `${failures.length} failures; answers by status ${JSON.stringify(Object.fromEntries(byStatus))}`,
    );
    const health = await call(`${server.consoleUrl}/api/healthz`, "GET");
    assert.equal(health.status, 200);
    const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: heartbeater });
    assert.equal(hb.status, 200, JSON.stringify(hb.body));
    // Heartbeat facts are written after the answer (batched): a body that was answered 200 but
    // cannot be stored shows only as a failed write in the log (a NUL did, on PostgreSQL).
    await new Promise((r) => setTimeout(r, 1000));
    const errors = server
      .logs()
      .split("\n")
      .filter((l) => / ERROR |unhandled error/.test(l));
    assert.deepEqual(errors, []);
    console.log(
      `fuzzing (${server.db.engine}): ${3 * PER_ENDPOINT} bodies in ${Math.round(performance.now() - started)} ms ` +
        `(ms by endpoint ${JSON.stringify(took)}), ` +
        `answers ${JSON.stringify(Object.fromEntries(byStatus))}`,
    );
  },
);

const UNSTORABLE = { nul: "a\u0000b", "lone surrogate": "a\ud800b" };

for (const [what, text] of Object.entries(UNSTORABLE)) {
  test(`a heartbeat with a ${what} in a node pool name, instance type or ack reason: 400 naming the field`, async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ nodePools: [{ name: text, nodeCount: 1, readyNodes: 1 }] }, "nodePools.0.name"],
      [{ nodePools: [{ name: "p", nodeCount: 1, readyNodes: 1, instanceType: text }] }, "nodePools.0.instanceType"],
      [{ acks: [{ id: "d1", ok: false, reason: text }] }, "acks.0.reason"],
      [{ policy: { appliedRevision: text } }, "policy.appliedRevision"],
    ];
    for (const [over, field] of cases) {
      const res = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(over), { client: heartbeater });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error, "invalid_request");
      assert.equal(res.body.details[0].field, field);
      assert.match(res.body.message, /cannot be stored/);
    }
    const ok = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: heartbeater });
    assert.equal(ok.status, 200);
  });

  test(`a registration with a ${what} in its name or apiServerUrl: 400 naming the field, and the attempt is logged escaped`, async () => {
    const t = await mintToken(server, { name: `odd-${what.length}`, maxClusters: 1 });
    const url = await registerWith(
      server,
      t.token,
      registrationBody("odd-url", { apiServerUrl: `https://api.example/${text}` }).body,
    );
    assert.equal(url.status, 400, JSON.stringify(url.body));
    assert.equal(url.body.details[0].field, "apiServerUrl");
    const name = await registerWith(server, t.token, registrationBody(`odd${text}name`).body);
    assert.equal(name.status, 400, JSON.stringify(name.body));
    assert.equal(name.body.details[0].field, "name");
    const escaped = `odd${text === UNSTORABLE.nul ? "a\\u0000b" : "a\\ud800b"}name`;
    const rows = await server.db.query<{ result: string }>(
      `SELECT "result" FROM "RegistrationAttempt" WHERE "clusterName" = '${escaped}'`,
    );
    assert.deepEqual(
      rows.map((r) => r.result),
      ["invalid_request"],
    );
  });

  test(`the admin API refuses a ${what} in a token name, a group description (and a NUL in a search or an id)`, async () => {
    const minted = await server.api("POST", "/api/v1/registration-tokens", { name: `t${text}` });
    assert.equal(minted.status, 400, JSON.stringify(minted.body));
    assert.equal(minted.body.details[0].field, "name");
    const group = await server.api("POST", "/api/v1/groups", {
      name: `g-${what.length}`,
      selector: "env=prod",
      description: text,
    });
    assert.equal(group.status, 400, JSON.stringify(group.body));
    assert.equal(group.body.details[0].field, "description");
    // A URL carries UTF-8 only: a lone surrogate cannot be spelled in a query, a NUL can.
    if (text === UNSTORABLE.nul) {
      const search = await server.api("GET", `/api/v1/clusters?q=${encodeURIComponent(text)}`);
      assert.equal(search.status, 400, JSON.stringify(search.body));
      assert.equal(search.body.details[0].field, "q");
      const byId = await server.api("GET", `/api/v1/clusters/cl_${encodeURIComponent(text)}`);
      assert.equal(byId.status, 400, JSON.stringify(byId.body));
      assert.equal(byId.body.details[0].field, "id");
    }
  });
}

test("a sign-in naming an email with a NUL is refused like a wrong password (401), and nothing fails to be written", async () => {
  // (A form carries UTF-8 only: a lone surrogate cannot be spelled in one.)
  const res = await signIn(server.consoleUrl, { email: "odd\u0000@example.com", password: "wrong-password" });
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.cookie, null);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(
    server
      .logs()
      .split("\n")
      .filter((l) => / ERROR |unhandled error/.test(l)),
    [],
  );
});
