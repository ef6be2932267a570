// The agent's Lease against an in-memory Lease API (get, create, update with resourceVersion
// conflicts, failures on demand): its own timing on a monotonic clock whatever the wall clock
// does, renewals that fail without the agent giving up, stepping down only for another holder,
// and creating the Lease when none exists.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AgentLease } from "@/lib/agent/kube/agent-lease";
import { KubeApiError, type KubeClient } from "@/lib/agent/kube/kube-client";
import type { KubeCallName } from "@/lib/domain/agent-kube-calls";

type Lease = {
  metadata: { name: string; namespace: string; resourceVersion: string; creationTimestamp: string };
  spec: Record<string, unknown>;
};

function leaseApi() {
  const api = {
    lease: null as Lease | null,
    rv: 1,
    /** Every Lease call fails with this status while set (an API server restarting: 503). */
    failing: null as number | null,
    calls: [] as KubeCallName[],
    client: null as unknown as KubeClient,
  };
  const fail = (call: KubeCallName, status: number, reason: string) => {
    throw new KubeApiError(status, reason, `${call} failed with HTTP ${status}`, call);
  };
  api.client = {
    async request(call: KubeCallName, _path: string, options: { body?: unknown; allow?: number[] } = {}) {
      api.calls.push(call);
      if (api.failing) fail(call, api.failing, "ServiceUnavailable");
      const ok = (body: unknown, status = 200) => ({ status, body: structuredClone(body), latencyMs: 1 });
      if (call === "getLease") {
        if (api.lease) return ok(api.lease);
        if (options.allow?.includes(404)) return ok({}, 404);
        fail(call, 404, "NotFound");
      }
      if (call === "createLease") {
        if (api.lease) return options.allow?.includes(409) ? ok({}, 409) : fail(call, 409, "AlreadyExists");
        const body = options.body as Lease;
        api.lease = {
          metadata: { ...body.metadata, resourceVersion: String(++api.rv), creationTimestamp: "2026-12-06T08:00:00Z" },
          spec: body.spec,
        };
        return ok(api.lease, 201);
      }
      if (call === "updateLease") {
        const body = options.body as Lease;
        if (!api.lease || body.metadata.resourceVersion !== api.lease.metadata.resourceVersion) fail(call, 409, "Conflict");
        api.lease = { metadata: { ...api.lease!.metadata, resourceVersion: String(++api.rv) }, spec: body.spec };
        return ok(api.lease);
      }
      throw new Error(`unexpected call ${call}`);
    },
  } as unknown as KubeClient;
  return api;
}

function clocks() {
  const c = { monotonic: 5_000, wall: Date.parse("2026-12-06T08:00:00Z") };
  return {
    c,
    /** Real time passing: both clocks move. */
    pass(ms: number) {
      c.monotonic += ms;
      c.wall += ms;
    },
  };
}

function agentLease(
  api: ReturnType<typeof leaseApi>,
  t: ReturnType<typeof clocks>,
  identity: string,
  logs: string[] = [],
  onSleep: () => void = () => undefined,
) {
  return new AgentLease({
    client: api.client,
    namespace: "fleet-system",
    name: "fleet-agent",
    identity,
    leaseDurationSeconds: 30,
    retryPeriodMs: 5_000,
    monotonicNow: () => t.c.monotonic,
    wallNow: () => t.c.wall,
    sleep: async (ms) => {
      t.pass(ms);
      onSleep();
    },
    log: (level, code, message) => logs.push(`${level} ${code} ${message}`),
  });
}

describe("the agent's Lease", () => {
  test("a missing Lease is created holding it (no manifest Lease needed); a create that loses the race reads it again", async () => {
    const api = leaseApi();
    const t = clocks();
    const logs: string[] = [];
    const a = agentLease(api, t, "pod-a", logs);
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(api.lease?.spec.holderIdentity, "pod-a");
    assert.deepEqual(api.calls, ["getLease", "createLease"]);
    assert.ok(logs.some((l) => l.startsWith("info LEASE_CREATED")));
    assert.deepEqual(a.report(), { holder: "pod-a", transitions: 0, createdAt: "2026-12-06T08:00:00Z" });

    // Another replica reads 404, then its create answers 409 AlreadyExists: it reads again and waits.
    const b = agentLease(api, t, "pod-b");
    const held = api.lease;
    api.lease = null;
    const realRequest = api.client.request.bind(api.client);
    let first = true;
    (api.client as { request: typeof realRequest }).request = async (call, path, options) => {
      if (call === "createLease" && first) {
        first = false;
        api.lease = held;
      }
      return realRequest(call, path, options);
    };
    assert.equal(await b.tryAcquireOrRenew(), false);
    assert.equal(b.standby, true, "a standby behind pod-a");
    assert.equal((api.lease as Lease | null)?.spec.holderIdentity, "pod-a");
  });

  test("its own timing is monotonic: a wall clock jumping ahead or back changes neither holding nor waiting", async () => {
    const api = leaseApi();
    const t = clocks();
    const a = agentLease(api, t, "pod-a");
    const b = agentLease(api, t, "pod-b");
    assert.equal(await a.tryAcquireOrRenew(), true);

    // NTP steps the wall clock an hour ahead: the holder still holds (its deadline is monotonic)
    // and the waiting replica does not take over early.
    t.c.wall += 3_600_000;
    assert.equal(a.held, true, "a wall-clock jump ahead does not end the holding");
    assert.equal(await b.tryAcquireOrRenew(), false);
    t.pass(10_000);
    assert.equal(await b.tryAcquireOrRenew(), false, "not taken over: pod-a renewed only seconds ago by the monotonic clock");

    // The wall clock goes back two hours: the holder does not believe it holds longer than it
    // does (two thirds of the duration after its renewal, by the monotonic clock).
    t.c.wall -= 7_200_000;
    t.pass(9_000);
    assert.equal(a.held, true, "19 s after its renewal");
    t.pass(1_000);
    assert.equal(a.held, false, "20 s after its renewal it no longer holds it, whatever the wall clock says");
    // And the MicroTimes it writes are the wall clock's, for other readers.
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(String(api.lease?.spec.renewTime).slice(0, 19), new Date(t.c.wall).toISOString().slice(0, 19));
  });

  test("renewals failing for many lease durations do not stop it; it holds again once the API answers", async () => {
    const api = leaseApi();
    const t = clocks();
    const logs: string[] = [];
    const stop = new AbortController();
    let rounds = 0;
    let heldDuringOutage: boolean | null = null;
    const lease = agentLease(api, t, "pod-a", logs, () => {
      rounds += 1;
      if (rounds === 2) api.failing = 503;
      if (rounds === 15) heldDuringOutage = lease.held;
      // About 100 s of failures: over three lease durations.
      if (rounds === 22) api.failing = null;
      if (rounds === 24) stop.abort();
    });
    assert.equal(await lease.tryAcquireOrRenew(), true);
    let lost: string | null = null;
    await lease.keepRenewing(stop.signal, (holder) => (lost = holder));
    assert.equal(lost, null, "no step-down: no other holder was ever seen");
    assert.equal(heldDuringOutage, false, "meanwhile not held: state writes and directives wait");
    assert.equal(lease.held, true, "renewed again once the API answered");
    assert.equal(logs.filter((l) => l.includes("LEASE_RENEW_FAILING")).length, 1, "one line for the whole outage");
    assert.ok(logs.some((l) => /LEASE_ACQUIRED renewed the Lease fleet-system\/fleet-agent again/.test(l)));
  });

  test("it steps down only when it sees another holder", async () => {
    const api = leaseApi();
    const t = clocks();
    const logs: string[] = [];
    const a = agentLease(api, t, "pod-a", logs);
    assert.equal(await a.tryAcquireOrRenew(), true);
    // While pod-a could not reach the API, pod-b took the Lease over.
    api.lease!.spec = {
      ...api.lease!.spec,
      holderIdentity: "pod-b",
      leaseTransitions: 1,
      renewTime: "2026-12-06T08:01:00.000000Z",
    };
    const stop = new AbortController();
    const lost: string[] = [];
    await a.keepRenewing(stop.signal, (holder) => lost.push(holder));
    assert.deepEqual(lost, ["pod-b"]);
    assert.equal(a.held, false);
    assert.ok(logs.some((l) => /LEASE_LOST pod-b holds the Lease fleet-system\/fleet-agent now: stepping down/.test(l)));
  });
});
