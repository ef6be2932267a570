// The agent port served by worker processes (AGENT_WORKERS; lib/server/agent-port/workers/):
// registrations answered by the main process, heartbeats by the workers, each accepting its own
// connections. On SQLite the workers hand every write to the main process, the file's one
// writer; on PostgreSQL they write as an instance does. Revocations and settings reach every
// worker at once, a worker that dies is replaced, and a stop writes what the workers buffered.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { heartbeatBody, registerCluster } from "../helpers/agent-client";
import { makeCsr } from "../helpers/csr";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { until } from "../helpers/until";

const WORKERS = 2;

/** The server's agent-port workers: its child processes running agent-worker.mjs (agent-worker.ts compiled). */
function workerPids(server: FleetServer): number[] {
  const children = readFileSync(`/proc/${server.pid()}/task/${server.pid()}/children`, "utf8").trim();
  return children
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("agent-worker.mjs"));
}

function metric(text: string, line: RegExp): number {
  const m = line.exec(text);
  return m ? Number(m[1]) : 0;
}

describe("the agent port on worker processes", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer({ AGENT_WORKERS: String(WORKERS) });
    await server.adminCookie();
  });
  after(async () => server?.stop());

  test("registrations are answered by the main process and heartbeats by every worker; facts and counts reach the database", async () => {
    assert.equal(workerPids(server).length, WORKERS);
    const before = String((await server.api("GET", "/api/metrics", undefined, { cookie: null })).body);
    const sent = 8;
    const clusters = await Promise.all(["w-1", "w-2"].map((name) => registerCluster(server, name)));
    for (let i = 0; i < sent; i++) {
      const { client } = clusters[i % 2]!;
      // Each call is a connection of its own, taken by whichever worker accepts it first.
      const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody({ kubernetesVersion: `1.31.${i}` }), {
        client,
      });
      assert.equal(hb.status, 200, JSON.stringify(hb.body));
    }
    const detail = await until("the last facts written", async () => {
      const d = await server.api("GET", `/api/v1/clusters/${clusters[1]!.clusterId}`);
      return d.body.kubernetesVersion === `1.31.${sent - 1}` && d.body.status === "Ready" ? d.body : null;
    });
    assert.equal(detail.name, "w-2");

    // One instance's metrics: every worker's heartbeats counted once, the main process's registrations.
    const text = String((await server.api("GET", "/api/metrics", undefined, { cookie: null })).body);
    const beats = /^fleet_heartbeats_total\{code="200"\} (\d+)/m;
    assert.equal(metric(text, beats) - metric(before, beats), sent);
    assert.match(text, /^fleet_agent_tls_handshakes_total\{resumed="false"\} [1-9]/m);
  });

  test("a new connection is answered by a worker while the main process is held up", async () => {
    const { client } = await registerCluster(server, "w-accept");
    // The certificate's first use (a call to the main process) is behind it.
    for (let i = 0; i < WORKERS * 2; i++)
      assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client })).status, 200);
    // SIGSTOP stands in for a main process busy with the console's jobs. Were it the one to accept
    // and hand over each connection (node:cluster's round robin), the heartbeat would wait for it.
    const main = server.pid()!;
    process.kill(main, "SIGSTOP");
    try {
      const held = new Promise<"held up">((resolve) => setTimeout(() => resolve("held up"), 5_000).unref());
      const answer = await Promise.race([server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client }), held]);
      assert.notEqual(answer, "held up", "no answer within 5 s while the main process was stopped");
      assert.equal((answer as { status: number }).status, 200);
    } finally {
      process.kill(main, "SIGCONT");
    }
  });

  test("a revocation and a rotation's first use apply in every worker at once; a Lease claim is written", async () => {
    const { clusterId, client } = await registerCluster(server, "w-revoke");
    const other = await registerCluster(server, "w-rotate");
    // Each worker caches both certificates.
    for (let i = 0; i < WORKERS * 2; i++) {
      assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client })).status, 200);
      assert.equal(
        (await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: other.client })).status,
        200,
      );
    }
    const revoked = await server.api("POST", `/api/v1/clusters/${clusterId}/certificate/revoke`, { reason: "key leaked" });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    for (let i = 0; i < WORKERS * 2; i++) {
      const refused = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client });
      assert.equal(refused.body.error, "certificate_revoked", `connection ${i}`);
    }

    // Rotation is answered by the main process; the new certificate's first use (in a worker)
    // retires the old one in every worker.
    const { csr, key } = makeCsr();
    const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client: other.client });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const lease = { holder: "agent-pod-b", transitions: 2 };
    const fresh = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody({ lease }), {
      client: { cert: rotated.body.certificate, key },
    });
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    for (let i = 0; i < WORKERS * 2; i++) {
      const old = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: other.client });
      assert.equal(old.body.error, "certificate_revoked", `connection ${i}`);
    }
    const [row] = await server.db.query<{ leaseHolder: string; leaseTransitions: number }>(
      server.db.engine === "sqlite"
        ? `SELECT "leaseHolder", "leaseTransitions" FROM "Cluster" WHERE "id" = ?`
        : `SELECT "leaseHolder", "leaseTransitions" FROM "Cluster" WHERE "id" = $1`,
      [other.clusterId],
    );
    assert.deepEqual(
      { ...row, leaseTransitions: Number(row!.leaseTransitions) },
      { leaseHolder: "agent-pod-b", leaseTransitions: 2 },
    );
  });

  test("a setting changed in the console is in the next heartbeat's answer from any worker", async () => {
    const { client } = await registerCluster(server, "w-settings");
    const patched = await server.api("PATCH", "/api/v1/settings", { heartbeatIntervalSeconds: 17 });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    try {
      for (let i = 0; i < WORKERS * 2; i++) {
        const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client });
        assert.equal(hb.body.heartbeatIntervalSeconds, 17, `connection ${i}`);
      }
    } finally {
      await server.api("PATCH", "/api/v1/settings", { heartbeatIntervalSeconds: 10 });
    }
  });

  test("a worker that dies is replaced, and a stop writes what the workers had buffered", async () => {
    const { clusterId, client } = await registerCluster(server, "w-crash");
    const [victim] = workerPids(server);
    process.kill(victim!, "SIGKILL");
    await until("a new worker", async () => {
      const pids = workerPids(server);
      return pids.length === WORKERS && !pids.includes(victim!);
    });
    assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client })).status, 200);

    // Facts answered a moment before SIGTERM are still in a worker's buffer: the stop writes them.
    const last = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody({ kubernetesVersion: "1.32.7" }), {
      client,
    });
    assert.equal(last.status, 200);
    await server.restart();
    const d = await server.api("GET", `/api/v1/clusters/${clusterId}`);
    assert.equal(d.body.kubernetesVersion, "1.32.7");
    assert.equal(workerPids(server).length, WORKERS);
  });
});
