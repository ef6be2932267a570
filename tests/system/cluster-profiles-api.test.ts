// The fleet as ClusterProfiles over HTTP on the real server: the list as a
// viewer's API key sees it (every answer checked against its contract, which restates the CRD's
// constraints), paging and refused cursors, the exporter's settings (the kubeconfig never comes
// back; one that would run a command, or names a private hub while those are not allowed, is
// refused), and the background job inside the server applying the fleet to a loopback hub through
// @kubernetes/client-node, counted in /api/metrics and described in the OpenAPI document.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { FakeKubeApi } from "../helpers/fake-kube-api";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { eksCluster } from "../helpers/kube-clusters";
import { until } from "../helpers/until";

const HUB_TOKEN = "hub-token-for-the-api-test";
let server: FleetServer;
let hub: FakeKubeApi;
let viewerKey = "";

const asViewer = (path: string) =>
  server.api("GET", path, undefined, { cookie: null, headers: { authorization: `Bearer ${viewerKey}` } });

describe("GET /api/v1/clusterprofiles and the exporter on a running server", () => {
  before(async () => {
    hub = await new FakeKubeApi(eksCluster(), { tokens: [HUB_TOKEN] }).start();
    server = await startFleetServer();
    for (const name of ["edge-1", "edge-2", "edge-3"]) {
      const res = await server.api("POST", "/api/v1/clusters", { name, labels: { env: "prod", region: "eu" } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const key = await server.api("POST", "/api/v1/api-keys", { name: "argocd", role: "viewer" });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    viewerKey = key.body.key;
  });
  after(async () => {
    await server?.stop();
    await hub?.stop();
  });

  test("a viewer's API key lists the fleet as a ClusterProfileList, a page at a time", async () => {
    const all = await asViewer("/api/v1/clusterprofiles");
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.apiVersion, "multicluster.x-k8s.io/v1alpha1");
    assert.equal(all.body.kind, "ClusterProfileList");
    assert.deepEqual(all.body.metadata, {});
    assert.deepEqual(
      all.body.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ["edge-1", "edge-2", "edge-3"],
    );
    const first = all.body.items[0];
    assert.equal(first.metadata.labels["x-k8s.io/cluster-manager"], "fleet-registry");
    assert.deepEqual(first.spec, { displayName: "edge-1", clusterManager: { name: "fleet-registry" } });
    // Provisioned, never registered: not joined, health unknown.
    assert.deepEqual(
      first.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`),
      ["ControlPlaneHealthy=Unknown", "Joined=False"],
    );

    const page1 = await asViewer("/api/v1/clusterprofiles?limit=2");
    assert.deepEqual(page1.body.metadata, { continue: "edge-2" });
    const page2 = await asViewer(`/api/v1/clusterprofiles?limit=2&continue=${page1.body.metadata.continue}`);
    assert.deepEqual(
      [page2.body.items.map((p: { metadata: { name: string } }) => p.metadata.name), page2.body.metadata],
      [["edge-3"], {}],
    );
    const forged = await asViewer("/api/v1/clusterprofiles?cursor=NOT_A_NAME");
    assert.equal(forged.status, 400);
    assert.equal(forged.body.error, "invalid_request");
    const tooMany = await asViewer("/api/v1/clusterprofiles?limit=501");
    assert.equal(tooMany.status, 400);
  });

  test("the exporter's settings: a viewer may not read them; the kubeconfig is taken, sealed and never returned", async () => {
    assert.equal((await asViewer("/api/v1/settings/cluster-profile-export")).status, 403);
    const before = await server.api("GET", "/api/v1/settings/cluster-profile-export");
    assert.equal(before.status, 200);
    assert.deepEqual(
      [before.body.enabled, before.body.kubeconfig, before.body.kekConfigured],
      [false, { set: false, server: null }, true],
    );
    const bad = await server.api("PATCH", "/api/v1/settings/cluster-profile-export", { kubeconfig: "not: [a kubeconfig" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "invalid_request");
    const unknownField = await server.api("PATCH", "/api/v1/settings/cluster-profile-export", { hub: "x" });
    assert.equal(unknownField.status, 400);
    // A kubeconfig that would run a command on the server is refused by the field's name.
    const exec = await server.api("PATCH", "/api/v1/settings/cluster-profile-export", {
      kubeconfig: hub
        .kubeconfig(HUB_TOKEN)
        .replace(`    token: ${HUB_TOKEN}`, "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: id"),
    });
    assert.equal(exec.status, 400, JSON.stringify(exec.body));
    assert.equal(exec.body.error, "invalid_request");
    assert.match(exec.body.message, /may not set users\[0\]\.user\.exec \(runs a program on this server\)/);
    assert.deepEqual(
      exec.body.details.map((d: { field: string }) => d.field),
      ["kubeconfig"],
    );
    // The test hub is on loopback: refused as a webhook target would be, until private targets are allowed.
    const loopback = await server.api("PATCH", "/api/v1/settings/cluster-profile-export", {
      kubeconfig: hub.kubeconfig(HUB_TOKEN),
    });
    assert.equal(loopback.status, 422, JSON.stringify(loopback.body));
    assert.equal(loopback.body.error, "target_not_allowed");
    assert.match(loopback.body.message, /hubAllowPrivateTargets/);
    assert.equal((await server.api("PATCH", "/api/v1/settings", { hubAllowPrivateTargets: true })).status, 200);

    const res = await server.api("PATCH", "/api/v1/settings/cluster-profile-export", {
      enabled: true,
      namespace: "fleet",
      kubeconfig: hub.kubeconfig(HUB_TOKEN),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.kubeconfig, { set: true, server: hub.url });
    assert.ok(!JSON.stringify(res.body).includes(HUB_TOKEN));
    const again = await server.api("GET", "/api/v1/settings/cluster-profile-export");
    assert.ok(!JSON.stringify(again.body).includes(HUB_TOKEN));
    assert.ok(!server.logs().includes(HUB_TOKEN), "never logged");
  });

  test("the server's background job applies every profile to the hub, counted in /api/metrics", async () => {
    await until(
      "three ClusterProfiles with status on the hub",
      async () => hub.clusterProfiles.size === 3 && [...hub.clusterProfiles.values()].every((o) => o.status),
      30_000,
      () => server.logs(),
    );
    const writes = hub.clusterProfileRequests().filter((r) => r.method === "PATCH");
    assert.equal(writes.length, 6);
    assert.ok(writes.every((r) => r.contentType === "application/apply-patch+yaml" && r.query.fieldManager === "fleet-registry"));
    const listed = await asViewer("/api/v1/clusterprofiles");
    for (const p of listed.body.items) {
      const stored = hub.clusterProfiles.get(`fleet/${p.metadata.name}`)!;
      assert.equal(p.metadata.namespace, "fleet");
      assert.deepEqual(stored.spec, p.spec);
      assert.deepEqual(stored.metadata.labels, p.metadata.labels);
    }
    const state = await server.api("GET", "/api/v1/settings/cluster-profile-export");
    assert.equal(state.body.exported, 3);
    assert.equal(state.body.lastError, null);
    const metrics = await (await fetch(`${server.consoleUrl}/api/metrics`)).text();
    assert.match(metrics, /^fleet_cluster_profile_writes_total\{kind="object"\} 3$/m);
    assert.match(metrics, /^fleet_cluster_profile_writes_total\{kind="status"\} 3$/m);
    assert.ok(!server.logs().includes(HUB_TOKEN), "never logged");
  });

  test("the OpenAPI document describes the list and the exporter's settings", async () => {
    const doc = (await server.api("GET", "/api/openapi")).body as { paths: Record<string, Record<string, unknown>> };
    assert.ok(doc.paths["/api/v1/clusterprofiles"]?.get);
    assert.ok(doc.paths["/api/v1/settings/cluster-profile-export"]?.patch);
  });
});
