// One writer of the agent's state in a cluster: the Lease (held, renewed, waited for, taken over
// when its holder stops renewing, released on a clean stop) and the state Secret's updates, which
// re-read and retry when a concurrent write wins (409 Conflict).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AgentLease } from "@/lib/agent/kube/agent-lease";
import { KubeApiError } from "@/lib/agent/kube/kube-client";
import { CONFLICT_RETRIES, SecretStateStore } from "@/lib/agent/kube/secret-state";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { aksCluster } from "../../helpers/kube-clusters";

async function setup() {
  const h = await startKubeCluster(aksCluster());
  h.api.addLease("fleet-agent");
  const lease = (identity: string) =>
    new AgentLease({
      client: h.client,
      namespace: "fleet-system",
      name: "fleet-agent",
      identity,
      leaseDurationSeconds: 30,
      retryPeriodMs: 5_000,
      monotonicNow: h.now,
      sleep: async (ms) => void h.advance(ms),
      log: (level, code, message) => h.logs.push(`${level} ${code} ${message}`),
    });
  const spec = () => h.api.leases.get("fleet-system/fleet-agent")!.spec;
  return { ...h, lease, spec };
}

describe("the agent's Lease", () => {
  test("held by one pod; a second waits with one log line, then takes over once the first stops renewing", async () => {
    const { lease, spec, logs, advance } = await setup();
    const a = lease("fleet-agent-7d9f-abcde");
    const b = lease("fleet-agent-7d9f-fghij");
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(a.held, true);
    assert.deepEqual(
      [spec().holderIdentity, spec().leaseDurationSeconds, spec().leaseTransitions],
      ["fleet-agent-7d9f-abcde", 30, 1],
    );
    assert.match(String(spec().renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, "a MicroTime");

    for (let i = 0; i < 4; i++) {
      assert.equal(await b.tryAcquireOrRenew(), false);
      advance(5_000);
      assert.equal(await a.tryAcquireOrRenew(), true, "the holder renews");
    }
    assert.equal(b.held, false);
    assert.equal(b.standby, true, "Ready as a standby (an upgrade's new pod)");
    assert.equal(a.standby, false);
    assert.equal(logs.filter((l) => l.includes("LEASE_WAITING")).length, 1, "one line, however long it waits");
    assert.ok(logs.some((l) => /another agent \(fleet-agent-7d9f-abcde\) holds the Lease fleet-system\/fleet-agent/.test(l)));

    // The holder stops renewing (its node died): after the lease duration the second takes over.
    assert.equal(await b.tryAcquireOrRenew(), false);
    advance(29_000);
    assert.equal(await b.tryAcquireOrRenew(), false, "not before the duration has passed since the record last changed");
    advance(2_000);
    assert.equal(await b.tryAcquireOrRenew(), true);
    assert.deepEqual([spec().holderIdentity, spec().leaseTransitions], ["fleet-agent-7d9f-fghij", 2]);
    assert.equal(b.standby, false);
    assert.equal(a.held, false, "the old holder's own deadline has passed too");
    assert.equal(await a.tryAcquireOrRenew(), false);
  });

  test("the holder losing its renewals stops; a clean stop releases it for the next pod at once", async () => {
    const { api, lease, spec, advance } = await setup();
    const a = lease("pod-a");
    assert.equal(await a.tryAcquireOrRenew(), true);
    const lostAt: number[] = [];
    const stop = new AbortController();
    // Someone else's write wins every renewal from now on.
    api.leases.get("fleet-system/fleet-agent")!.spec = { holderIdentity: "pod-b", renewTime: new Date().toISOString() };
    await a.keepRenewing(stop.signal, () => lostAt.push(1));
    assert.deepEqual(lostAt, [1]);
    assert.equal(a.held, false);

    api.addLease("fleet-agent");
    const c = lease("pod-c");
    const d = lease("pod-d");
    assert.equal(await c.tryAcquireOrRenew(), true);
    await c.release();
    assert.equal(spec().holderIdentity, "");
    advance(1);
    assert.equal(await d.tryAcquireOrRenew(), true, "no wait for the duration after a release");
  });

  test("a missing Lease (a GitOps sync that leaves Leases out) is created through the API, holding it", async () => {
    const { api, lease, spec } = await setup();
    api.leases.clear();
    assert.equal(await lease("p").tryAcquireOrRenew(), true);
    assert.equal(spec().holderIdentity, "p");
    assert.deepEqual(
      api.requests.filter((r) => r.path.includes("/leases")).map((r) => `${r.method} ${r.path}`),
      [
        "GET /apis/coordination.k8s.io/v1/namespaces/fleet-system/leases/fleet-agent",
        "POST /apis/coordination.k8s.io/v1/namespaces/fleet-system/leases",
      ],
    );
    assert.equal(await lease("q").tryAcquireOrRenew(), false, "a second pod finds it held");
  });
});

describe("the state Secret", () => {
  test("an update that loses to a concurrent write (409) is re-read and retried, a bounded number of times", async () => {
    const { api, client } = await setup();
    api.addSecret("fleet-agent-state", { "cluster.json": "{}" });
    const store = new SecretStateStore(client, { namespace: "fleet-system", name: "fleet-agent-state" });
    api.secretConflicts = 2;
    await store.savePendingKey("KEY");
    assert.equal(api.secretText("fleet-agent-state", "pending-key.pem"), "KEY");
    assert.equal(api.secretText("fleet-agent-state", "cluster.json"), "{}", "the other keys kept");
    const puts = () => api.requests.filter((r) => r.method === "PUT").length;
    assert.equal(puts(), 3);

    api.secretConflicts = 100;
    await assert.rejects(store.savePendingKey("KEY2"), (err) => err instanceof KubeApiError && err.status === 409);
    assert.equal(puts(), 3 + CONFLICT_RETRIES);
  });

  test("only the Lease's holder writes it", async () => {
    const { api, client } = await setup();
    api.addSecret("fleet-agent-state");
    const store = new SecretStateStore(client, { namespace: "fleet-system", name: "fleet-agent-state" }, { held: false });
    await assert.rejects(store.savePendingKey("KEY"), /does not hold the Lease/);
    assert.equal(api.requests.filter((r) => r.method === "PUT").length, 0);
  });
});
