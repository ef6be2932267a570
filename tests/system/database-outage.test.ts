// The PostgreSQL outage drill (docs/operations/failure-modes.md): the real server reaches its database
// through a TCP proxy this test controls. 20 agents heartbeat every second; the proxy then drops
// every connection and refuses new ones for 12 s (longer than the 10 s NotReady threshold). While
// it is cut: no 500 anywhere, known agents keep their 200s, the admin API and registration answer
// 503 database_unavailable with Retry-After, readyz 503, healthz 200. After: every fact reported
// during the outage is written, no cluster went NotReady, readyz is 200 again within 15 s.
// Bounded: about 45 s after the server is up (90 s at most).
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, test } from "node:test";
import { heartbeatBody, mintToken, registerCluster, registrationBody, registerWith } from "../helpers/agent-client";
import type { AgentResponse, RegisteredCluster } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { createTestDatabase, testEngine, type TestDatabase } from "../helpers/test-database";
import { until } from "../helpers/until";

const AGENTS = 20;
const OUTAGE_MS = 12_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A loopback TCP proxy in front of PostgreSQL that can be cut (drop everything, refuse new) and restored. */
async function startProxy(target: { host: string; port: number }) {
  const open = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    // Refused: the listener stays (its port cannot be handed to someone else meanwhile).
    if (cut) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    open.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      cut = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// SQLite is a file in the server's own process: there is no connection to lose. The drill is
// PostgreSQL's (multi-instance.test.ts does the same).
if (testEngine() === "postgres") {
  let db: TestDatabase;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let server: FleetServer;

  before(async () => {
    db = await createTestDatabase();
    const direct = new URL(db.url);
    proxy = await startProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(db.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    server = await startFleetServer({ DATABASE_URL: viaProxy.toString() }, { database: db });
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
    await db?.drop();
  });

  test(
    "a database outage: heartbeats keep their 200s, the rest answers 503, nothing is lost, nobody turns NotReady",
    { timeout: 90_000 },
    async () => {
      // Settings first: a 10 s threshold, so a 12 s outage would turn every cluster NotReady if the
      // outage were taken for the agents'.
      const settings = await server.api("PATCH", "/api/v1/settings", {
        notReadyThresholdSeconds: 10,
        heartbeatIntervalSeconds: 1,
      });
      assert.equal(settings.status, 200, JSON.stringify(settings.body));
      const clusters: RegisteredCluster[] = [];
      for (let i = 0; i < AGENTS; i++) clusters.push(await registerCluster(server, `outage-${i}`));
      const cookie = await server.adminCookie();
      // A valid token: registering with it needs the database (a malformed one is refused without).
      const spareToken = await mintToken(server, { name: "spare", maxClusters: 1 });

      // Every answer, by phase; the pod count is a per-agent sequence number, so the facts written
      // afterwards can be compared with the last heartbeat answered.
      type Seen = { phase: string; what: string; status: number; ms: number; retryAfter?: string; error?: string };
      const seen: Seen[] = [];
      let phase = "before";
      const lastAnswered = new Map<string, number>();
      let heartbeating = true;
      /** Makes the call and notes its answer and how long it took. */
      const noted = async (what: string, call: () => Promise<AgentResponse>) => {
        const started = Date.now();
        const res = await call().catch(
          (err: Error) => ({ status: 0, body: { error: err.message }, headers: {} }) as AgentResponse,
        );
        seen.push({
          phase,
          what,
          status: res.status,
          ms: Date.now() - started,
          retryAfter: res.headers["retry-after"] as string | undefined,
          error: res.body?.error,
        });
        return res;
      };
      const agentLoop = async (c: RegisteredCluster) => {
        let seq = 0;
        while (heartbeating) {
          seq++;
          const sent = seq;
          const res = await noted("heartbeat", () =>
            server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody({ workloads: { pods: sent, namespaces: 1 } }), {
              client: c.client,
            }),
          );
          if (res.status === 200) lastAnswered.set(c.clusterId, sent);
          await sleep(1000);
        }
      };
      const loops = clusters.map((c) => agentLoop(c));
      await until("every agent's first heartbeat answered", async () => lastAnswered.size === AGENTS, 20_000);
      await until("every cluster Ready", async () => {
        const rows = await db.query<{ status: string }>(`SELECT status FROM "Cluster"`);
        return rows.length === AGENTS && rows.every((r) => r.status === "Ready");
      });
      await sleep(2000);

      // The outage.
      phase = "outage";
      const cutAt = Date.now();
      proxy.cut();
      await sleep(1500);
      const admin = [
        ["GET", "/api/v1/clusters"],
        ["GET", "/api/v1/settings"],
        ["POST", "/api/v1/registration-tokens"],
        ["GET", `/api/v1/clusters/${clusters[0]!.clusterId}`],
      ] as const;
      const probes: { readyz: number[]; healthz: number[] } = { readyz: [], healthz: [] };
      let metricsText = "";
      // At least three rounds, however slow a loaded machine makes them.
      for (let round = 0; round < 3 || Date.now() - cutAt < OUTAGE_MS - 1000; round++) {
        for (const [method, path] of admin) {
          const body = method === "POST" ? { name: "x", ttlSeconds: 600, maxClusters: 1 } : undefined;
          await noted(`${method} ${path}`, () => server.api(method, path, body, { cookie }));
        }
        await noted("register", () => registerWith(server, spareToken.token, registrationBody("outage-new").body));
        probes.readyz.push((await noted("readyz", () => server.api("GET", "/api/readyz", undefined, { cookie: null }))).status);
        probes.healthz.push(
          (await noted("healthz", () => server.api("GET", "/api/healthz", undefined, { cookie: null }))).status,
        );
        const metrics = await noted("metrics", () => server.api("GET", "/api/metrics", undefined, { cookie: null }));
        if (metrics.status === 200) metricsText = String(metrics.body);
        await sleep(1000);
      }
      // The last heartbeats of the outage are the ones that must be written after it: stop them,
      // then bring the database back.
      heartbeating = false;
      await Promise.all(loops);
      phase = "after";
      proxy.restore();
      const restoredAt = Date.now();

      // Nothing answered 500, anywhere; every 503 said why and when to come back.
      const bad = seen.filter((s) => s.status >= 500 && s.status !== 503);
      assert.deepEqual(bad, [], "no 500s");
      // (readyz answers its own probe body, without Retry-After: it is checked below.)
      for (const s of seen.filter((x) => x.status === 503 && x.what !== "readyz")) {
        assert.ok(["database_unavailable", "overloaded"].includes(s.error ?? ""), JSON.stringify(s));
        assert.match(s.retryAfter ?? "", /^\d+$/, JSON.stringify(s));
      }
      const during = seen.filter((s) => s.phase === "outage");
      const heartbeats = during.filter((s) => s.what === "heartbeat");
      assert.ok(heartbeats.length >= AGENTS * 5, `heartbeats kept coming during the outage (${heartbeats.length})`);
      assert.deepEqual(
        heartbeats.filter((s) => s.status !== 200),
        [],
        "known agents keep their 200s while the database is away",
      );
      for (const [method, path] of admin) {
        const answers = during.filter((s) => s.what === `${method} ${path}`);
        assert.ok(answers.length >= 3, `${method} ${path} was asked`);
        for (const a of answers) {
          assert.equal(a.status, 503, `${method} ${path}: ${JSON.stringify(a)}`);
          assert.equal(a.error, "database_unavailable", `${method} ${path}`);
        }
      }
      for (const r of during.filter((s) => s.what === "register")) assert.equal(r.status, 503, JSON.stringify(r));
      assert.ok(probes.readyz.length >= 3 && probes.readyz.every((s) => s === 503), `readyz: ${probes.readyz}`);
      assert.ok(
        probes.healthz.every((s) => s === 200),
        `healthz: ${probes.healthz}`,
      );
      assert.match(metricsText, /^fleet_database_reachable 0$/m, "metrics still answer, and say the database is away");
      assert.match(metricsText, /^fleet_heartbeat_buffered\{kind="facts"\} [1-9]/m, "the buffered facts are counted");
      assert.match(metricsText, /^fleet_heartbeat_flush_failures_total [1-9]/m);

      // After: ready again within 15 s, and the last fact each agent reported is what is stored.
      await until(
        "readyz 200 again",
        async () => (await server.api("GET", "/api/readyz", undefined, { cookie: null })).status === 200,
        15_000,
      );
      const readyAfterMs = Date.now() - restoredAt;
      await until(
        "the facts reported during the outage written",
        async () => {
          const rows = await db.query<{ id: string; podCount: number }>(`SELECT id, "podCount" FROM "Cluster"`);
          return rows.every((r) => r.podCount === lastAnswered.get(r.id));
        },
        15_000,
      );
      // Heartbeats resume; a few sweeps later still nobody was ever NotReady.
      heartbeating = true;
      const resumed = clusters.map((c) => agentLoop(c));
      await sleep(4000);
      heartbeating = false;
      await Promise.all(resumed);
      const notReady = await db.query(
        `SELECT "clusterName", "fromValue", "toValue", at FROM "ClusterEvent" WHERE kind = 'status' AND "toValue" = 'NotReady'`,
      );
      assert.deepEqual(notReady, [], "no cluster went NotReady because of the outage");
      const statuses = await db.query<{ status: string }>(`SELECT status FROM "Cluster"`);
      assert.ok(
        statuses.every((r) => r.status === "Ready"),
        JSON.stringify(statuses),
      );
      assert.doesNotMatch(server.logs(), /unhandled error/, "every failure was an expected one");
      const metrics = await server.api("GET", "/api/metrics", undefined, { cookie: null });
      assert.match(String(metrics.body), /^fleet_database_reachable 1$/m);
      const ms = (p: string, what: (s: Seen) => boolean) => {
        const sorted = seen.filter((s) => s.phase === p && what(s)).map((s) => s.ms);
        sorted.sort((a, b) => a - b);
        return `p50 ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms`;
      };
      const isHeartbeat = (s: Seen) => s.what === "heartbeat";
      console.log(
        `outage drill: ${heartbeats.length} heartbeats answered 200 during a ${Math.round((restoredAt - cutAt) / 1000)} s outage; ` +
          `heartbeats before ${ms("before", isHeartbeat)}, during ${ms("outage", isHeartbeat)}; ` +
          `other answers during ${ms("outage", (s) => !isHeartbeat(s))}; ready ${readyAfterMs} ms after the database returned`,
      );
    },
  );
}
