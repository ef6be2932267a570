// Fault drills against the real server (production build) on loopback, on both engines: a crash
// in the middle of a registration burst, a thousand agents reconnecting at once, and
// SIGTERM under load. Fuzzed bodies are in fuzz-bodies.test.ts; the PostgreSQL outage drill is its
// own file. Each drill has its own server and a time bound (CI budget: the three together take
// well under two minutes per engine on a 2-core machine).
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import { test } from "node:test";
import { makeKey } from "../helpers/csr";
import {
  call,
  heartbeatBody,
  mintToken,
  registerWith,
  registrationBody,
  rideOut,
  toldToWait,
  type AgentResponse,
  type ClientCert,
} from "../helpers/agent-client";
import { startFleetServer, TEST_KEK, type FleetServer } from "../helpers/fleet-server";
import { seedAgents } from "../helpers/seed-rows";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Registration bursts from one address must not meet the per-address rate limit here.
const UNLIMITED = { REGISTRATION_RATE_PER_MINUTE: "100000", REGISTRATION_RATE_BURST: "10000", LOG_LEVEL: "warn" };
const HEARTBEAT = "/api/agent/v1/heartbeat";

async function tokenUses(server: FleetServer, tokenId: string): Promise<number> {
  const res = await server.api("GET", "/api/v1/registration-tokens");
  assert.equal(res.status, 200);
  return res.body.items.find((t: { id: string }) => t.id === tokenId).usedClusters;
}

async function clusterNames(server: FleetServer, prefix: string): Promise<Map<string, string>> {
  const rows = await server.db.query<{ id: string; name: string }>(
    `SELECT "id", "name" FROM "Cluster" WHERE "name" LIKE '${prefix}%'`,
  );
  return new Map(rows.map((r) => [r.name, r.id]));
}

test(
  "kill -9 in the middle of 50 registrations: every 201 stands, lost answers succeed on retry with the same key, token uses exact",
  { timeout: 120_000 },
  async () => {
    const started = performance.now();
    const server = await startFleetServer(UNLIMITED);
    try {
      const MAX = 40;
      const BURST = 50;
      const token = await mintToken(server, { name: "burst", maxClusters: MAX });
      // Each request keeps its body (so its CSR and key) for the retry, as an agent does.
      const requests = Array.from({ length: BURST }, (_, i) => registrationBody(`burst-${i}`));
      const took: Record<string, number> = {};
      let mark = started;
      const lap = (what: string) => ((took[what] = Math.round(performance.now() - mark)), (mark = performance.now()));
      lap("server start, token, 50 keys");
      const answers: (AgentResponse | null)[] = new Array(BURST).fill(null);
      let created = 0;
      let killNow!: () => void;
      const fewCreated = new Promise<void>((resolve) => (killNow = resolve));
      const burst = requests.map((r, i) =>
        registerWith(server, token.token, r.body).then(
          (res) => {
            answers[i] = res;
            if (res.status === 201 && ++created === 3) killNow();
          },
          () => {}, // the answer was lost with the process
        ),
      );
      await Promise.race([fewCreated, Promise.all(burst)]);
      await server.kill("SIGKILL");
      await Promise.all(burst);
      lap("burst and crash");

      const beforeCrash = answers.filter((a): a is AgentResponse => a !== null);
      // A 503 overloaded (the event loop lagged under the burst) is an answer too: ride it out.
      for (const a of beforeCrash)
        assert.ok(a.status < 500 || toldToWait(a), `before the crash: ${a.status} ${JSON.stringify(a.body)}`);
      const lost = answers.flatMap((a, i) => (a === null || a.status >= 500 ? [i] : []));
      assert.ok(lost.length > 0, "the crash came after every answer: nothing was drilled");

      await server.restart();
      lap("restart");
      const deadline = Date.now() + 60_000;
      await Promise.all(
        lost.map(async (i) => {
          answers[i] = await rideOut(() => registerWith(server, token.token, requests[i]!.body), deadline);
        }),
      );
      lap("retries");
      const created201 = answers.flatMap((a, i) => (a!.status === 201 ? [i] : []));
      for (const a of answers) {
        assert.ok(a!.status === 201 || a!.body.error === "token_exhausted", `${a!.status} ${JSON.stringify(a!.body)}`);
      }
      // Exactly min(N, K) registrations, each once, and the token counted each once.
      assert.equal(created201.length, MAX);
      const names = await clusterNames(server, "burst-");
      assert.equal(names.size, MAX);
      for (const i of created201) assert.equal(names.get(`burst-${i}`), answers[i]!.body.clusterId, `burst-${i}`);
      assert.equal(new Set(created201.map((i) => answers[i]!.body.clusterId)).size, MAX);
      assert.equal(await tokenUses(server, token.id), MAX);
      // The 201s answered before the crash stand: their certificates still heartbeat.
      for (const a of beforeCrash.filter((x) => x.status === 201)) {
        const i = answers.indexOf(a);
        const client = { cert: a.body.certificate, key: requests[i]!.key };
        const hb = await server.agent("POST", HEARTBEAT, heartbeatBody(), { client });
        assert.equal(hb.status, 200, JSON.stringify(hb.body));
      }
      console.log(
        `kill -9 drill (${server.db.engine}): ${beforeCrash.length} answered before the crash, ${lost.length} retried, ` +
          `${Math.round(performance.now() - started)} ms (${JSON.stringify(took)})`,
      );
    } finally {
      await server.stop();
    }
  },
);

test(
  "1,000 agents reconnecting at once, each on a fresh TLS connection: all 200, or 503 with Retry-After ridden out; no 500",
  { timeout: 150_000 },
  async () => {
    const started = performance.now();
    const server = await startFleetServer({ LOG_LEVEL: "warn" });
    try {
      const COUNT = 1000;
      const keys = Array.from({ length: 4 }, () => makeKey().privateKeyPem);
      const agents = await seedAgents(server.db, { count: COUNT, prefix: "storm", keys, kek: TEST_KEK });
      const firstAnswers = new Map<number, number>();
      const stormStarted = performance.now();
      const deadline = Date.now() + 90_000;
      const finals = await Promise.all(
        agents.map((a) =>
          rideOut(
            () => server.agent("POST", HEARTBEAT, heartbeatBody(), { client: a.client }),
            deadline,
            (r) => firstAnswers.set(r.status, (firstAnswers.get(r.status) ?? 0) + 1),
          ),
        ),
      );
      const stormMs = performance.now() - stormStarted;
      const unexpected = [...firstAnswers.keys()].filter((s) => s !== 200 && s !== 503);
      assert.deepEqual(unexpected, [], `first answers by status: ${JSON.stringify(Object.fromEntries(firstAnswers))}`);
      const notOk = finals.filter((r) => r.status !== 200);
      assert.equal(notOk.length, 0, `not 200 in the end: ${JSON.stringify(notOk.slice(0, 3).map((r) => r.body))}`);
      // Every heartbeat reached the database (the writer batches them; give it a moment).
      let seen = 0;
      for (const until = Date.now() + 10_000; Date.now() < until; await sleep(200)) {
        const [row] = await server.db.query<{ n: number | string }>(
          `SELECT COUNT(*) AS "n" FROM "Cluster" WHERE "name" LIKE 'storm-%' AND "lastHeartbeatAt" IS NOT NULL`,
        );
        seen = Number(row!.n);
        if (seen === COUNT) break;
      }
      assert.equal(seen, COUNT);
      // And a server that has just held a storm stops promptly and cleanly.
      const exit = await server.kill("SIGTERM");
      assert.deepEqual([exit.code, exit.signal], [0, null], server.logs().slice(-2000));
      assert.ok(exit.ms < 10_000, `exit took ${Math.round(exit.ms)} ms`);
      console.log(
        `reconnect storm (${server.db.engine}): first answers ${JSON.stringify(Object.fromEntries(firstAnswers))}, ` +
          `all 200 after ${Math.round(stormMs)} ms, exit ${Math.round(exit.ms)} ms after SIGTERM; ` +
          `drill ${Math.round(performance.now() - started)} ms`,
      );
    } finally {
      await server.stop();
    }
  },
);

/**
 * A request whose headers and first half of the body are on the wire (the server is handling it)
 * while the rest waits for `finish()`: in flight for certain when a signal arrives.
 */
function halfSent(server: FleetServer, path: string, body: unknown, opts: { client?: ClientCert; token?: string }) {
  const text = JSON.stringify(body);
  const half = Math.floor(text.length / 2);
  const req = https.request({
    method: "POST",
    host: "127.0.0.1",
    port: server.agentPort,
    path,
    ca: server.caPem,
    ...opts.client,
    agent: false,
    headers: {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
  });
  const answer = new Promise<AgentResponse>((resolve, reject) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), headers: res.headers }),
      );
    });
    req.on("error", reject);
  });
  // Written once the TLS handshake is done (the server then reads the headers straight away).
  const sent = new Promise<void>((resolve) => req.write(text.slice(0, half), () => resolve()));
  return { answer, sent, finish: () => req.end(text.slice(half)) };
}

test(
  "SIGTERM under load: requests in flight are answered, buffered heartbeat facts are written, the process exits within 10 s",
  { timeout: 120_000 },
  async () => {
    const started = performance.now();
    const server = await startFleetServer(UNLIMITED);
    const connections: https.Agent[] = [];
    try {
      const keys = Array.from({ length: 4 }, () => makeKey().privateKeyPem);
      const agents = await seedAgents(server.db, { count: 120, prefix: "term", keys, kek: TEST_KEK });
      const loaded = agents.slice(0, 100);
      const slow = agents.slice(100);
      const token = await mintToken(server, { name: "term", maxClusters: 10 });

      // Load: 100 agents heartbeating back to back on kept-alive connections, pods counting up, so
      // every heartbeat changes the facts and the last one answered is the one the database must hold.
      let loading = true;
      const acked = new Map<string, number>();
      const loadErrors: string[] = [];
      const loops = loaded.map(async (a) => {
        const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem, ...a.client });
        connections.push(agent);
        for (let pods = 1; loading; pods++) {
          const body = heartbeatBody({ workloads: { pods, namespaces: 3 } });
          const res = await call(`${server.agentUrl}${HEARTBEAT}`, "POST", { agent, body }).catch((err: Error) => err);
          // After SIGTERM a connection may be closed or refused before a request reaches the server.
          if (res instanceof Error)
            return void (/ECONNRESET|ECONNREFUSED|EPIPE|socket hang up/.test(res.message) || loadErrors.push(res.message));
          if (res.status === 200) acked.set(a.clusterId, pods);
          else if (res.status >= 500 && !(res.status === 503 && res.headers["retry-after"]))
            loadErrors.push(`${res.status} ${JSON.stringify(res.body)}`);
        }
      });
      // Every agent has its connection up and answered (100 TLS handshakes take a few seconds here).
      for (const until = Date.now() + 30_000; acked.size < loaded.length && Date.now() < until;) await sleep(100);
      assert.equal(acked.size, loaded.length, "every loaded agent has been answered");

      // In flight for certain when SIGTERM arrives: heartbeats and registrations half sent.
      const inFlight = [
        ...slow.map((a, i) =>
          halfSent(server, HEARTBEAT, heartbeatBody({ workloads: { pods: 7000 + i, namespaces: 3 } }), { client: a.client }),
        ),
        ...Array.from({ length: 5 }, (_, i) =>
          halfSent(server, "/api/agent/v1/register", registrationBody(`term-new-${i}`).body, { token: token.token }),
        ),
      ];
      // A console tab open on the live event stream (server-sent events never end by themselves).
      const cookie = await server.adminCookie();
      const eventStream = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${server.consoleUrl}/api/v1/events`, { headers: { cookie } }, resolve).on("error", reject),
      );
      assert.equal(eventStream.statusCode, 200);
      const eventStreamEnded = new Promise<void>((resolve) => eventStream.on("close", () => resolve()).resume());
      await Promise.all(inFlight.map((r) => r.sent));
      await sleep(500);
      const exit = server.kill("SIGTERM");
      await sleep(300);
      inFlight.forEach((r) => r.finish());
      const answers = await Promise.all(inFlight.map((r) => r.answer));
      const { code, signal, ms } = await exit;
      await eventStreamEnded;
      loading = false;
      await Promise.all(loops);

      assert.deepEqual(
        answers.slice(0, slow.length).map((a) => a.status),
        slow.map(() => 200),
      );
      assert.deepEqual(
        answers.slice(slow.length).map((a) => a.status),
        [201, 201, 201, 201, 201],
      );
      assert.deepEqual(loadErrors, []);
      assert.equal(signal, null, "it exited by itself");
      assert.equal(code, 0);
      assert.ok(ms < 10_000, `exit took ${Math.round(ms)} ms`);

      // The facts of every answered heartbeat are in the database (the writer buffers them).
      const rows = await server.db.query<{ id: string; podCount: number | null }>(
        `SELECT "id", "podCount" FROM "Cluster" WHERE "name" LIKE 'term-%'`,
      );
      const pods = new Map(rows.map((r) => [r.id, r.podCount === null ? null : Number(r.podCount)]));
      slow.forEach((a, i) => assert.equal(pods.get(a.clusterId), 7000 + i, a.name));
      for (const [id, n] of acked) assert.ok((pods.get(id) ?? 0) >= n, `${id}: ${pods.get(id)} < acknowledged ${n}`);
      assert.equal((await clusterNames(server, "term-new-")).size, 5);
      console.log(
        `SIGTERM drill (${server.db.engine}): exit ${Math.round(ms)} ms after SIGTERM, ${acked.size} loaded agents, ` +
          `drill ${Math.round(performance.now() - started)} ms`,
      );
    } finally {
      connections.forEach((c) => c.destroy());
      await server.stop();
    }
  },
);
