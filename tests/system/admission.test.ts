// Admission control on the agent port (docs/protocol.md, "Overload and outages"): a registration burst
// beyond the limits gets 503 overloaded with Retry-After and never a 500, while heartbeats of a
// registered cluster keep answering 200; signing runs on the worker pool. Against the real server
// over real TLS, on the engine TEST_ENGINE selects. Bounded: one burst of 40, about 10-20 s.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { makeCsr } from "../helpers/csr";
import { heartbeatBody, mintToken, registerCluster, registerWith, registrationBody } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;

before(async () => {
  server = await startFleetServer({
    // Tight limits so a burst of 40 is surely past them on any machine.
    SIGNING_MAX_IN_FLIGHT: "1",
    SIGNING_MAX_QUEUED: "2",
    SIGNING_RETRY_AFTER_SECONDS: "3",
    // The limits alone: refusals for event-loop lag are admission-lag.test.ts's.
    SIGNING_MAX_EVENT_LOOP_LAG_MS: "0",
    REGISTRATION_RATE_PER_MINUTE: "60000",
    REGISTRATION_RATE_BURST: "10000",
  });
});
after(async () => {
  await server?.stop();
});

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(text)?.[1] ?? 0);

test("a burst past the limits gets 503 overloaded with Retry-After, no 500, and heartbeats keep their 200s", async () => {
  const steady = await registerCluster(server, "steady-1");
  const token = await mintToken(server, { name: "burst", maxClusters: 100 });
  const csr = makeCsr().csr;

  let bursting = true;
  const heartbeats: number[] = [];
  const heartbeatLoop = (async () => {
    while (bursting) {
      const res = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: steady.client });
      heartbeats.push(res.status);
    }
  })();
  const burst = await Promise.all(
    Array.from({ length: 40 }, (_, i) => registerWith(server, token.token, registrationBody(`burst-${i}`, { csr }).body)),
  );
  bursting = false;
  await heartbeatLoop;

  const statuses = burst.map((r) => r.status);
  assert.ok(!statuses.some((s) => s >= 500 && s !== 503), `no 500s: ${statuses.join(",")}`);
  const refused = burst.filter((r) => r.status === 503);
  assert.ok(refused.length > 0, `the burst went past 1 in flight + 2 queued: ${statuses.join(",")}`);
  for (const r of refused) {
    assert.equal(r.body.error, "overloaded");
    // Whole seconds, at least SIGNING_RETRY_AFTER_SECONDS, at most the default maximum (60).
    assert.match(String(r.headers["retry-after"]), /^\d+$/);
    const seconds = Number(r.headers["retry-after"]);
    assert.ok(seconds >= 3 && seconds <= 60, `Retry-After ${seconds}`);
  }
  assert.ok(
    statuses.every((s) => s === 201 || s === 503),
    statuses.join(","),
  );
  assert.ok(heartbeats.length > 0 && heartbeats.every((s) => s === 200), `heartbeats: ${heartbeats.join(",")}`);

  // Refusals are counted, and logged as attempts in one batch a little later (deferred-attempts.ts).
  const metrics = String((await server.api("GET", "/api/metrics", undefined, { cookie: null })).body);
  assert.equal(metric(metrics, 'fleet_signing_admission_total\\{outcome="refused"\\}'), refused.length);
  assert.equal(metric(metrics, 'fleet_signing_admission_total\\{outcome="admitted"\\}'), 41 - refused.length);
  // The production server signs on its worker threads.
  assert.ok(metric(metrics, 'fleet_signing_jobs_total\\{where="worker"\\}') > 0, metrics);
  // Each refusal is in the attempts log as "overloaded", attributed to its (proven) token, within
  // a flush interval or two.
  let deferred: { result: string; clusterName: string; tokenId: string }[] = [];
  const deadline = Date.now() + 15_000;
  while (deferred.length < refused.length && Date.now() < deadline) {
    const attempts = await server.api("GET", `/api/v1/registration-attempts?tokenId=${token.id}&result=overloaded&limit=100`);
    assert.equal(attempts.status, 200);
    deferred = attempts.body.items;
    if (deferred.length < refused.length) await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(deferred.length, refused.length, "one attempt-log row per 503");
  const refusedNames = refused.map((r) => `burst-${burst.indexOf(r)}`).sort();
  assert.deepEqual(deferred.map((a) => a.clusterName).sort(), refusedNames);
  // The overview's card: a bucket of their own, not failures, not refusals.
  const overview = await server.api("GET", "/api/v1/overview");
  assert.equal(overview.body.registrations.deferred, refused.length);
  assert.equal(overview.body.registrations.byResult.overloaded, refused.length);
  assert.equal(overview.body.registrations.failed, 0);

  // A refused agent that comes back later is registered.
  const retried = await registerWith(server, token.token, registrationBody(`burst-${burst.indexOf(refused[0]!)}`, { csr }).body);
  assert.equal(retried.status, 201, JSON.stringify(retried.body));
});
