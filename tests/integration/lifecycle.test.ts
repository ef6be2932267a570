// Provisioning, policies and enrollment in-process on the engine TEST_ENGINE picks: an admin
// pre-creates a cluster, an agent claims it with a bound token (registerCluster, as the agent
// port's register endpoint calls it), its heartbeats (recordHeartbeat, behind agentIdentity as on
// the port) sync the policies and it becomes Enrolled; draining freezes revisions. The protocol
// over mutual TLS is tests/system's (agent-protocol, reregistration).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { describe, test } from "node:test";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { deregistrationRoutes } from "@/lib/contracts/deregistration";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { groupRoutes } from "@/lib/contracts/groups";
import { policyRoutes } from "@/lib/contracts/policies";
import { tokenRoutes } from "@/lib/contracts/tokens";
import { agentIdentity, IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { fingerprintOf, normalizeSerial } from "@/lib/server/agent-port/agent-server";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { provisionCluster } from "@/lib/server/clusters/provision-cluster";
import { overview } from "@/lib/server/fleet/overview";
import { createGroup } from "@/lib/server/groups/groups";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { recordHeartbeat } from "@/lib/server/heartbeats/record-heartbeat";
import { actOnDeregistration } from "@/lib/server/lifecycle/deregistration";
import { evaluateEnrollment } from "@/lib/server/lifecycle/enrollment";
import { addRevision, createPolicy } from "@/lib/server/policies/policies";
import { registerCluster } from "@/lib/server/registration/register-cluster";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { registrationBody } from "../helpers/agent-client";
import { appDatabase } from "../helpers/app-database";
import { ADMIN, callRoute } from "../helpers/route-call";
import { testEngine } from "../helpers/test-database";
import { until } from "../helpers/until";

appDatabase();

const provision = (body: unknown) =>
  callRoute(clusterRoutes.provision, { body }, async ({ body }) => {
    const { id, registrationToken } = await provisionCluster(ADMIN, body);
    return { ...(await getCluster(id)), registrationToken };
  });
const cluster = (id: string) => callRoute(clusterRoutes.get, {}, () => getCluster(id));

/** A heartbeat as the agent port answers it: the identity from the certificate, then the service. */
async function beat(certificate: string, applied: string | null) {
  return beatWith(certificate, {
    agentVersion: "1.4.0",
    kubernetesVersion: "1.30.2",
    workloads: { pods: 5, namespaces: 2 },
    health: { apiServer: "ok", logs: true, metrics: true },
    policy: { appliedRevision: applied },
  });
}

async function beatWith(certificate: string, body: Record<string, unknown>) {
  const cert = new X509Certificate(certificate);
  const headers = new Headers({
    [IDENTITY_HEADERS.fingerprint]: fingerprintOf(cert.fingerprint256),
    [IDENTITY_HEADERS.serial]: normalizeSerial(cert.serialNumber),
  });
  const reply = await recordHeartbeat(await agentIdentity(headers), body);
  // The server's writer and enrollment job run on timers; here they run when the test asks.
  await flushHeartbeats(true);
  await evaluateEnrollment();
  return JSON.parse(JSON.stringify(reply));
}

describe(`provisioning, policies and enrollment on ${testEngine()}`, () => {
  test("facts not read yet are absent: never stored as zeros, and the last ones stay until new ones arrive", async () => {
    const token = await callRoute(tokenRoutes.mint, { body: { name: "facts", maxClusters: 1 } }, ({ body }) =>
      mintToken(ADMIN, body),
    );
    assert.equal(token.status, 201, JSON.stringify(token.body));
    const registered = await registerCluster(
      token.body.token,
      registrationBody("facts-1", { labels: { env: "dev", region: "eu-west-1" } }).body,
      {
        sourceAddress: "127.0.0.1",
      },
    );
    if (registered.kind !== "registered") return assert.fail(JSON.stringify(registered));
    const { clusterId, certificate } = registered.response;

    // An agent that just started: no facts read yet.
    const first = await beatWith(certificate, { agentVersion: "1.4.0", acks: [] });
    assert.equal(first.status, "Ready", "not read is not down");
    let shown = (await cluster(clusterId)).body;
    assert.deepEqual([shown.nodeCount, shown.workloads, shown.health.apiServer, shown.health.logs], [null, null, null, null]);

    const pools = [{ name: "workers", nodeCount: 12, readyNodes: 11, kubeletVersion: "1.30.2", cpuCores: 48, memoryGiB: 192 }];
    await beatWith(certificate, {
      agentVersion: "1.4.0",
      kubernetesVersion: "1.30.2",
      nodePools: pools,
      workloads: { pods: 120, namespaces: 9, userPods: 40 },
      health: { apiServer: "ok", logs: true, metrics: false },
      factAges: { nodePools: 3, pods: 61 },
    });
    // Restarted: the first heartbeat again carries nothing but what it has read (the API server's health).
    await beatWith(certificate, { agentVersion: "1.4.1", health: { apiServer: "degraded" } });
    shown = (await cluster(clusterId)).body;
    assert.equal(shown.nodeCount, 12, "the stored pools stay");
    assert.deepEqual(shown.workloads, { pods: 120, namespaces: 9, userPods: 40 });
    assert.deepEqual(shown.health, { apiServer: "degraded", logs: true, metrics: false });
    assert.equal(shown.kubernetesVersion, "1.30.2");
    assert.equal(shown.agentVersion, "1.4.1");
  });

  test("an admin pre-creates a cluster; an agent claims it with a bound token; policies sync; it becomes Enrolled; draining freezes revisions", async () => {
    const pre = await provision({ name: "claimed-1", labels: { region: "eu-west-1", team: "platform" } });
    assert.equal(pre.status, 201, JSON.stringify(pre.body));
    assert.equal(pre.body.phase, "Provisioning");
    assert.equal(pre.body.status, "Provisioning");
    assert.equal((await provision({ name: "claimed-1" })).status, 409);

    // Only a token bound to the pre-created cluster claims it.
    const token = await callRoute(
      tokenRoutes.mint,
      { body: { name: "claim", maxClusters: 1, fixedLabels: { env: "dev" }, clusterId: pre.body.id } },
      ({ body }) => mintToken(ADMIN, body),
    );
    assert.equal(token.status, 201, JSON.stringify(token.body));
    const registered = await registerCluster(token.body.token, registrationBody("claimed-1", { labels: {} }).body, {
      sourceAddress: "127.0.0.1",
    });
    assert.equal(registered.kind, "registered", JSON.stringify(registered));
    if (registered.kind !== "registered") return;
    const { clusterId, certificate } = registered.response;
    assert.equal(clusterId, pre.body.id, "the agent claims the pre-created record");

    const group = await callRoute(
      groupRoutes.create,
      { body: { name: "dev-eu", selector: "env=dev,region in (eu-west-1)" } },
      ({ body }) => createGroup(ADMIN, body),
    );
    assert.equal(group.status, 201, JSON.stringify(group.body));
    const policy = await callRoute(
      policyRoutes.create,
      { body: { name: "baseline", groupIds: [group.body.id], content: { podSecurity: "restricted" } } },
      ({ body }) => createPolicy(ADMIN, body),
    );
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    const revise = (content: Record<string, unknown>) =>
      callRoute(policyRoutes.addRevision, { body: { content } }, ({ body }) => addRevision(ADMIN, policy.body.id, body));

    const first = await until("the desired revision", async () => {
      const hb = await beat(certificate, null);
      return hb.desiredPolicyRevision === "baseline:1" && hb;
    });
    assert.equal(first.status, "Ready");
    await beat(certificate, "baseline:1");

    const enrolled = await until("enrollment", async () => {
      await beat(certificate, "baseline:1");
      const d = await cluster(clusterId);
      return d.body.enrollment.enrolledAt && d.body;
    });
    assert.equal(enrolled.enrollment.complete, true, JSON.stringify(enrolled.enrollment.items));
    assert.deepEqual(enrolled.labels, { env: "dev", region: "eu-west-1", team: "platform" });
    assert.ok(
      enrolled.enrollment.items.every((i: { since: string | null }) => i.since),
      "each item says since when",
    );
    assert.ok(enrolled.events.some((e: { kind: string; to: string }) => e.kind === "enrollment" && e.to === "Enrolled"));

    const revised = await revise({ podSecurity: "baseline" });
    assert.equal(revised.body.revision, 2);
    await until(
      "revision 2 to be asked for",
      async () => (await beat(certificate, "baseline:1")).desiredPolicyRevision === "baseline:2",
    );
    const blocked = await until("enrollment to notice the unsynced policy", async () => {
      await evaluateEnrollment();
      const d = await cluster(clusterId);
      return !d.body.enrollment.enrolledAt && d.body;
    });
    assert.equal(blocked.enrollment.items.find((i: { key: string }) => i.key === "policies").state, "fail");

    // A draining cluster gets no new revisions.
    const drain = await callRoute(deregistrationRoutes.act, { body: { action: "start" } }, ({ body }) =>
      actOnDeregistration(ADMIN, clusterId, body),
    );
    assert.equal(drain.status, 200, JSON.stringify(drain.body));
    await revise({ podSecurity: "privileged" });
    const draining = await cluster(clusterId);
    assert.equal(draining.body.desiredPolicyRevision, "baseline:2");
    const hb = await beat(certificate, "baseline:1");
    assert.equal(hb.status, "Draining");
    assert.equal(hb.desiredPolicyRevision, "baseline:2");

    const fleet = await callRoute(fleetRoutes.overview, {}, () => overview());
    assert.equal(typeof fleet.body.enrollment?.total, "number");
  });
});
