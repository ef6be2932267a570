// Provisioning, policies and enrollment against the real server, on the engine TEST_ENGINE selects.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { mintToken, registerCluster } from "../helpers/agent-client";
import { startFleetServer, type ClientCert, type FleetServer } from "../helpers/fleet-server";
import { until } from "../helpers/until";

let server: FleetServer;
before(async () => {
  server = await startFleetServer();
});
after(async () => {
  await server?.stop();
});

const beat = (client: ClientCert, applied: string | null) =>
  server.agent(
    "POST",
    "/api/agent/v1/heartbeat",
    {
      agentVersion: "1.4.0",
      kubernetesVersion: "1.30.2",
      workloads: { pods: 5, namespaces: 2 },
      health: { apiServer: "ok", logs: true, metrics: true },
      policy: { appliedRevision: applied },
    },
    { client },
  );

test("an admin pre-creates a cluster; an agent claims it with a bound token; policies sync; it becomes Enrolled; draining freezes revisions", async () => {
  const pre = await server.api("POST", "/api/v1/clusters", {
    name: "claimed-1",
    labels: { region: "eu-west-1", team: "platform" },
  });
  assert.equal(pre.status, 201, JSON.stringify(pre.body));
  assert.equal(pre.body.phase, "Provisioning");
  assert.equal(pre.body.status, "Provisioning");
  assert.equal((await server.api("POST", "/api/v1/clusters", { name: "claimed-1" })).status, 409);

  // Only a token bound to the pre-created cluster claims it.
  const token = await mintToken(server, { name: "claim", maxClusters: 1, fixedLabels: { env: "dev" }, clusterId: pre.body.id });
  const { clusterId, client } = await registerCluster(server, "claimed-1", { token, body: { labels: {} } });
  assert.equal(clusterId, pre.body.id, "the agent claims the pre-created record");

  const group = await server.api("POST", "/api/v1/groups", { name: "dev-eu", selector: "env=dev,region in (eu-west-1)" });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  const policy = await server.api("POST", "/api/v1/policies", {
    name: "baseline",
    groupIds: [group.body.id],
    content: { podSecurity: "restricted" },
  });
  assert.equal(policy.status, 201, JSON.stringify(policy.body));

  const first = await until("the desired revision", async () => {
    const hb = await beat(client, null);
    return hb.body.desiredPolicyRevision === "baseline:1" && hb.body;
  });
  assert.equal(first.status, "Ready");
  await beat(client, "baseline:1");

  const enrolled = await until("enrollment", async () => {
    await beat(client, "baseline:1");
    const d = await server.api("GET", `/api/v1/clusters/${clusterId}`);
    return d.body.enrollment.enrolledAt && d.body;
  });
  assert.equal(enrolled.enrollment.complete, true, JSON.stringify(enrolled.enrollment.items));
  assert.deepEqual(enrolled.labels, { env: "dev", region: "eu-west-1", team: "platform" });
  assert.ok(
    enrolled.enrollment.items.every((i: { since: string | null }) => i.since),
    "each item says since when",
  );
  assert.ok(enrolled.events.some((e: { kind: string; to: string }) => e.kind === "enrollment" && e.to === "Enrolled"));

  const revised = await server.api("POST", `/api/v1/policies/${policy.body.id}/revisions`, {
    content: { podSecurity: "baseline" },
  });
  assert.equal(revised.body.revision, 2);
  await until(
    "revision 2 to be asked for",
    async () => (await beat(client, "baseline:1")).body.desiredPolicyRevision === "baseline:2",
  );
  const blocked = await until("enrollment to notice the unsynced policy", async () => {
    const d = await server.api("GET", `/api/v1/clusters/${clusterId}`);
    return !d.body.enrollment.enrolledAt && d.body;
  });
  assert.equal(blocked.enrollment.items.find((i: { key: string }) => i.key === "policies").state, "fail");

  // A draining cluster gets no new revisions.
  assert.equal((await server.api("POST", `/api/v1/clusters/${clusterId}/deregistration`, { action: "start" })).status, 200);
  await server.api("POST", `/api/v1/policies/${policy.body.id}/revisions`, { content: { podSecurity: "privileged" } });
  const draining = await server.api("GET", `/api/v1/clusters/${clusterId}`);
  assert.equal(draining.body.desiredPolicyRevision, "baseline:2");
  const hb = await beat(client, "baseline:1");
  assert.equal(hb.body.status, "Draining");
  assert.equal(hb.body.desiredPolicyRevision, "baseline:2");

  const overview = await server.api("GET", "/api/v1/overview");
  assert.equal(typeof overview.body.enrollment?.total, "number");
});
