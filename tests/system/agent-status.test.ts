// Status truth with a short threshold, and the per-address registration rate limit, against
// the real server (separate from agent-protocol.test.ts: both need their own server settings).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { heartbeatBody, registerCluster, registrationBody } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;

before(async () => {
  server = await startFleetServer({ REGISTRATION_RATE_PER_MINUTE: "2", REGISTRATION_RATE_BURST: "4" });
});
after(async () => {
  await server?.stop();
});

const facts = { kubernetesVersion: "1.31.0", labels: { env: "dev", region: "eu-west-1" } };
const body = (name: string) => registrationBody(name, facts).body;

test("a silent cluster turns NotReady within threshold + 5 s, with the transition recorded", async () => {
  const threshold = 10;
  const patched = await server.api("PATCH", "/api/v1/settings", {
    notReadyThresholdSeconds: threshold,
    heartbeatIntervalSeconds: 2,
  });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  const { clusterId, client } = await registerCluster(server, "quiet-1", { body: facts });
  const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody({ kubernetesVersion: "1.31.0" }), { client });
  assert.equal(hb.status, 200);
  assert.equal(hb.body.heartbeatIntervalSeconds, 2);
  const lastBeat = Date.now();

  let status = "";
  let lastHeartbeatAt = "";
  let events: { to: string; reason: string; at: string }[] = [];
  while (Date.now() - lastBeat < (threshold + 5) * 1000) {
    const d = await server.api("GET", `/api/v1/clusters/${clusterId}`);
    status = d.body.status;
    lastHeartbeatAt = d.body.lastHeartbeatAt;
    events = d.body.events;
    if (events.some((e) => e.to === "NotReady")) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(status, "NotReady");
  const notReady = events.find((e) => e.to === "NotReady")!;
  assert.ok(notReady, "transition recorded");
  assert.match(notReady.reason, /threshold/);
  // Measured against the heartbeat time the server stored, not when this test saw the reply.
  const lag = Date.parse(notReady.at) - Date.parse(lastHeartbeatAt);
  assert.ok(lag > threshold * 1000 && lag <= (threshold + 5) * 1000, `recorded ${lag} ms after the last heartbeat`);
  const list = await server.api("GET", "/api/v1/clusters?status=NotReady");
  assert.deepEqual(
    list.body.items.map((c: { id: string }) => c.id),
    [clusterId],
  );
});

test("registrations beyond the per-address rate get 429 with Retry-After", async () => {
  const statuses: number[] = [];
  let retryAfter: string | string[] | undefined;
  for (let i = 0; i < 8; i++) {
    const res = await server.agent("POST", "/api/agent/v1/register", body(`rl-${i}`), {
      headers: { authorization: "Bearer frt_nope_nope" },
    });
    statuses.push(res.status);
    if (res.status === 429) {
      retryAfter = res.headers["retry-after"];
      assert.equal(res.body.error, "rate_limited");
    }
  }
  assert.ok(statuses.includes(429), statuses.join(","));
  assert.ok(Number(retryAfter) >= 1, `Retry-After: ${retryAfter}`);
});
