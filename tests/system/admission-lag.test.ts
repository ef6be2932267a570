// Event-loop-aware admission on the agent port: while the server's event loop
// lags, registrations beyond a few get 503 overloaded with Retry-After, heartbeats keep their
// 200s, and once the loop keeps up again registrations are admitted. The loop is blocked for real:
// the server process is stopped (SIGSTOP) for a second, so its timers fire a second late, as after
// any long synchronous stall. Against the real server over real TLS, on the engine TEST_ENGINE
// selects. Bounded: one stop of 1 s and about 30 registrations.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { makeCsr } from "../helpers/csr";
import { heartbeatBody, mintToken, registerCluster, registerWith, registrationBody } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;

before(async () => {
  server = await startFleetServer({
    // Limits that a burst of 16 never reaches, so every refusal below is the lag's. The threshold
    // sits well above what a busy shared machine adds by itself, well below the 1 s stop (which
    // leaves 8 x 300 / 1000 = 2 in flight).
    SIGNING_MAX_IN_FLIGHT: "8",
    SIGNING_MAX_QUEUED: "64",
    SIGNING_MAX_EVENT_LOOP_LAG_MS: "300",
    SIGNING_RETRY_AFTER_SECONDS: "4",
    REGISTRATION_RATE_PER_MINUTE: "60000",
    REGISTRATION_RATE_BURST: "10000",
  });
});
after(async () => {
  await server?.stop();
});

const lagging = async () => {
  const text = String((await server.api("GET", "/api/metrics", undefined, { cookie: null })).body);
  return Number(/^fleet_signing_admission_total\{outcome="lagging"\} (\d+)/m.exec(text)?.[1] ?? 0);
};

test("a blocked event loop refuses registrations with 503 overloaded + Retry-After, never heartbeats, and stops refusing after", async () => {
  const steady = await registerCluster(server, "steady-1");
  const token = await mintToken(server, { name: "wave", maxClusters: 100 });
  const csr = makeCsr().csr;
  const register = (name: string) => registerWith(server, token.token, registrationBody(name, { csr }).body);
  assert.equal((await register("warm-0")).status, 201);
  assert.equal(await lagging(), 0);

  const pid = server.pid();
  assert.ok(pid);
  process.kill(pid, "SIGSTOP");
  // Sent while the server is stopped: they wait in the kernel and reach the gate right after.
  const wave = Array.from({ length: 16 }, (_, i) => register(`wave-${i}`));
  const heartbeat = server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: steady.client });
  try {
    await sleep(1000);
  } finally {
    process.kill(pid, "SIGCONT");
  }
  const answers = await Promise.all(wave);
  const statuses = answers.map((r) => r.status);
  assert.ok(
    statuses.every((s) => s === 201 || s === 503),
    statuses.join(","),
  );
  const refused = answers.filter((r) => r.status === 503);
  assert.ok(refused.length > 0, `the wave met a lagging loop: ${statuses.join(",")}`);
  assert.ok(statuses.includes(201), `a few registrations still run while the loop lags: ${statuses.join(",")}`);
  for (const r of refused) {
    assert.equal(r.body.error, "overloaded");
    // Whole seconds, at least SIGNING_RETRY_AFTER_SECONDS, at most the default maximum (60).
    assert.match(String(r.headers["retry-after"]), /^\d+$/);
    const seconds = Number(r.headers["retry-after"]);
    assert.ok(seconds >= 4 && seconds <= 60, `Retry-After ${seconds}`);
  }
  assert.equal((await heartbeat).status, 200, "heartbeats are never refused for lag");
  assert.equal(await lagging(), refused.length, "each refusal is counted as lagging, none as limits full");

  // A second later the stop has left the window: the refused agents come back together and are
  // all admitted (8 in flight + 64 queued hold them).
  await sleep(1500);
  const retried = await Promise.all(refused.map((r) => register(`wave-${answers.indexOf(r)}`)));
  assert.deepEqual(
    retried.map((r) => r.status),
    refused.map(() => 201),
    JSON.stringify(retried.map((r) => r.body)),
  );
  assert.equal(await lagging(), refused.length, "no refusal once the loop keeps up");
});
