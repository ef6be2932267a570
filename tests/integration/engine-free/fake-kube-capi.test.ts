// The loopback Kubernetes API as a Cluster API management cluster (Clusters at v1beta1 and
// v1beta2: discovery, lists, watches with bookmarks and 410, server-side apply of annotations)
// and as a workload cluster taking server-side apply of the agent's manifest: the behaviour the
// Cluster API import's tests stand on, checked over HTTPS as a client sees it.
import assert from "node:assert/strict";
import https from "node:https";
import { after, before, describe, test } from "node:test";
import { agentManifestObjects } from "@/lib/domain/agent-manifest";
import { FakeKubeApi } from "../../helpers/fake-kube-api";
import { aksCluster } from "../../helpers/kube-clusters";

const TOKEN = "t";
const ADMIN = "admin-token";
let api: FakeKubeApi;
/**
 * An older CAPI (v1beta1 only), also the workload cluster of the apply tests (a cluster without
 * the agent's namespace yet; the agent's token and an admin's): one key pair fewer to make.
 */
let old: FakeKubeApi;

before(async () => {
  [api, old] = await Promise.all([
    new FakeKubeApi(aksCluster(), { tokens: [TOKEN], adminTokens: [ADMIN] }).start(),
    new FakeKubeApi(
      { ...aksCluster(), namespaces: ["default", "kube-system"] },
      { tokens: [TOKEN], adminTokens: [ADMIN], capiVersions: ["v1beta1"] },
    ).start(),
  ]);
});
after(async () => {
  await Promise.all([api.stop(), old.stop()]);
});

type Reply = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

function call(
  kube: FakeKubeApi,
  method: string,
  path: string,
  o: { body?: unknown; contentType?: string; token?: string } = {},
): Promise<Reply> {
  const text = o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${kube.url}${path}`,
      {
        method,
        ca: kube.caPem,
        headers: {
          authorization: `Bearer ${o.token ?? TOKEN}`,
          accept: "application/json",
          ...(text ? { "content-type": o.contentType ?? "application/json" } : {}),
        },
      },
      (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : undefined }));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** A watch: its events as they arrive, and whether the server ended it. */
function watch(kube: FakeKubeApi, path: string) {
  const events: { type: string; object: any }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  let ended = false;
  let wake = () => {};
  const req = https.request(`${kube.url}${path}`, { ca: kube.caPem, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
    let buffer = "";
    res.on("data", (c) => {
      buffer += c;
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        events.push(JSON.parse(buffer.slice(0, i)));
        buffer = buffer.slice(i + 1);
      }
      wake();
    });
    res.on("end", () => {
      ended = true;
      wake();
    });
  });
  req.end();
  const until = async (ok: () => boolean, what: string) => {
    const deadline = Date.now() + 2000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`watch: ${what}; got ${JSON.stringify(events.map((e) => e.type))}`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
    }
  };
  return {
    events,
    ended: () => ended,
    count: (n: number) => until(() => events.length >= n, `${n} events`),
    end: () => until(() => ended, "the end"),
    close: () => req.destroy(),
  };
}

const CAPI = "/apis/cluster.x-k8s.io";
const applyType = "application/apply-patch+yaml";

describe("Cluster API management cluster", () => {
  test("discovery: the served versions, v1beta2 preferred; a version not served is 404", async () => {
    const group = await call(api, "GET", CAPI);
    assert.equal(group.status, 200);
    assert.deepEqual(
      group.body.versions.map((v: { version: string }) => v.version),
      ["v1beta2", "v1beta1"],
    );
    assert.deepEqual(group.body.preferredVersion, { groupVersion: "cluster.x-k8s.io/v1beta2", version: "v1beta2" });
    const resources = await call(api, "GET", `${CAPI}/v1beta1`);
    assert.equal(resources.body.kind, "APIResourceList");
    const clusters = resources.body.resources.find((r: { name: string }) => r.name === "clusters");
    assert.equal(clusters.kind, "Cluster");
    assert.equal(clusters.namespaced, true);
    assert.ok(clusters.verbs.includes("watch"));

    assert.equal((await call(old, "GET", CAPI)).body.preferredVersion.version, "v1beta1");
    const missing = await call(old, "GET", `${CAPI}/v1beta2/clusters`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.kind, "Status");
  });

  test("lists page with limit/continue, filter by namespace and label, and render each version's shape", async () => {
    api.addNamespace("team-a", { "fleet-registry/auto-register": "true" });
    api.addNamespace("team-b");
    const optIn = { "fleet-registry/auto-register": "true" };
    for (const name of ["a1", "a2", "a3"])
      api.addCapiCluster({ namespace: "team-a", name, labels: name === "a2" ? {} : optIn, phase: "Provisioning" });
    api.addCapiCluster({
      namespace: "team-b",
      name: "b1",
      labels: { ...optIn, env: "prod" },
      phase: "Provisioned",
      infrastructureKind: "AWSCluster",
      infrastructureApiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
      kubernetesVersion: "v1.31.4",
      topologyClass: "quick-start",
    });

    const names: string[] = [];
    let cont = "";
    let pages = 0;
    do {
      const page = await call(api, "GET", `${CAPI}/v1beta2/clusters?limit=3${cont ? `&continue=${cont}` : ""}`);
      assert.equal(page.body.kind, "ClusterList");
      assert.match(page.body.metadata.resourceVersion, /^\d+$/);
      names.push(...page.body.items.map((c: { metadata: { name: string } }) => c.metadata.name));
      cont = page.body.metadata.continue ?? "";
      pages += 1;
    } while (cont);
    assert.deepEqual(names, ["a1", "a2", "a3", "b1"]);
    assert.equal(pages, 2);

    const selected = await call(api, "GET", `${CAPI}/v1beta1/clusters?labelSelector=fleet-registry%2Fauto-register%3Dtrue`);
    assert.deepEqual(
      selected.body.items.map((c: { metadata: { name: string } }) => c.metadata.name),
      ["a1", "a3", "b1"],
    );
    const inB = await call(
      api,
      "GET",
      `${CAPI}/v1beta1/namespaces/team-b/clusters?labelSelector=env%3Dprod,fleet-registry%2Fauto-register`,
    );
    assert.deepEqual(
      inB.body.items.map((c: { metadata: { name: string } }) => c.metadata.name),
      ["b1"],
    );

    const v1 = (await call(api, "GET", `${CAPI}/v1beta1/namespaces/team-b/clusters/b1`)).body;
    assert.equal(v1.apiVersion, "cluster.x-k8s.io/v1beta1");
    assert.deepEqual(v1.spec.infrastructureRef, {
      apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
      kind: "AWSCluster",
      name: "b1",
      namespace: "team-b",
    });
    assert.deepEqual(v1.spec.topology, { class: "quick-start", version: "v1.31.4" });
    assert.equal(v1.status.phase, "Provisioned");
    assert.equal(v1.status.infrastructureReady, true);
    assert.equal(v1.status.controlPlaneReady, true);
    assert.deepEqual(
      v1.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`),
      ["InfrastructureReady=True", "ControlPlaneInitialized=True", "ControlPlaneReady=True", "Ready=True"],
    );

    const v2 = (await call(api, "GET", `${CAPI}/v1beta2/namespaces/team-a/clusters/a1`)).body;
    assert.deepEqual(v2.spec.infrastructureRef, {
      apiGroup: "infrastructure.cluster.x-k8s.io",
      kind: "DockerCluster",
      name: "a1",
    });
    assert.deepEqual(v2.status.initialization, { infrastructureProvisioned: true, controlPlaneInitialized: false });
    const cpInit = v2.status.conditions.find((c: { type: string }) => c.type === "ControlPlaneInitialized");
    assert.equal(cpInit.status, "False");
    assert.equal(cpInit.reason, "NotInitialized");
    assert.equal(cpInit.observedGeneration, 1);
    assert.ok(v2.status.conditions.some((c: { type: string }) => c.type === "ControlPlaneAvailable"));
    old.addCapiCluster({ namespace: "x", name: "y" });
    const v1Pending = (await call(old, "GET", `${CAPI}/v1beta1/namespaces/x/clusters/y`)).body;
    const infra = v1Pending.status.conditions.find((c: { type: string }) => c.type === "InfrastructureReady");
    assert.deepEqual([infra.status, infra.severity, infra.reason], ["False", "Info", "WaitingForInfrastructure"]);
    assert.equal(v1Pending.status.v1beta2, undefined, "a CAPI without v1beta2 carries no v1beta2 conditions");

    const kubeconfig = api.kubeconfig("workload-admin");
    api.addCapiKubeconfigSecret("team-b", "b1", kubeconfig);
    const secret = await call(api, "GET", "/api/v1/namespaces/team-b/secrets/b1-kubeconfig");
    assert.equal(Buffer.from(secret.body.data.value, "base64").toString("utf8"), kubeconfig);

    const namespaces = await call(api, "GET", "/api/v1/namespaces?labelSelector=fleet-registry%2Fauto-register%3Dtrue");
    assert.deepEqual(
      namespaces.body.items.map((n: { metadata: { name: string } }) => n.metadata.name),
      ["team-a"],
    );
    api.setNamespaceLabels("team-a", {});
    const teamA = await call(api, "GET", "/api/v1/namespaces/team-a");
    assert.deepEqual(teamA.body.metadata.labels, { "kubernetes.io/metadata.name": "team-a" });
    assert.equal((await call(api, "GET", "/api/v1/namespaces/nowhere")).status, 404);
    assert.equal((await call(api, "GET", "/api/v1/namespaces/kube-system")).body.metadata.uid, api.kubeSystemUid);
  });

  test("a watch from a list's resourceVersion sees the changes after it, and bookmarks when it asked", async () => {
    const rv = (await call(api, "GET", `${CAPI}/v1beta2/namespaces/team-w/clusters`)).body.metadata.resourceVersion;
    api.addCapiCluster({ namespace: "team-w", name: "w1", phase: "Provisioning" });
    const w = watch(api, `${CAPI}/v1beta2/namespaces/team-w/clusters?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
    const plain = watch(api, `${CAPI}/v1beta1/clusters?watch=1&resourceVersion=${rv}`);
    await w.count(1);
    await plain.count(1);
    assert.equal(api.capiWatches, 2);
    api.updateCapiCluster("team-w", "w1", (c) => (c.conditions.ControlPlaneInitialized.status = "True"));
    api.addCapiCluster({ namespace: "elsewhere", name: "e1" });
    api.sendCapiBookmark();
    api.setCapiClusterDeleting("team-w", "w1");
    api.removeCapiCluster("team-w", "w1");
    await w.count(5);
    assert.deepEqual(
      w.events.map((e) => e.type),
      ["ADDED", "MODIFIED", "BOOKMARK", "MODIFIED", "DELETED"],
    );
    assert.equal(w.events[1]!.object.status.initialization.controlPlaneInitialized, true);
    await plain.count(5);
    assert.deepEqual(w.events[2]!.object, {
      kind: "Cluster",
      apiVersion: "cluster.x-k8s.io/v1beta2",
      metadata: { resourceVersion: plain.events[2]!.object.metadata.resourceVersion },
    });
    assert.ok(w.events[3]!.object.metadata.deletionTimestamp);
    assert.equal(w.events[3]!.object.status.phase, "Deleting");
    assert.deepEqual(
      plain.events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ["ADDED w1", "MODIFIED w1", "ADDED e1", "MODIFIED w1", "DELETED w1"],
      "all namespaces, no bookmarks (not asked for)",
    );
    w.close();
    plain.close();
  });

  test("expired: open watches end with 410 and a watch from before answers 410; one from a new list resumes", async () => {
    const rv = (await call(api, "GET", `${CAPI}/v1beta1/clusters`)).body.metadata.resourceVersion;
    const w = watch(api, `${CAPI}/v1beta1/clusters?watch=true&resourceVersion=${rv}`);
    const deadline = Date.now() + 2000;
    while (api.capiWatches < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    api.updateCapiCluster("team-a", "a3", (c) => (c.metadata.labels.seen = "1"));
    await w.count(1);
    api.expireCapiWatches();
    await w.end();
    assert.deepEqual([w.events.at(-1)!.type, w.events.at(-1)!.object.code], ["ERROR", 410]);
    assert.equal(api.capiWatches, 0);

    const stale = watch(api, `${CAPI}/v1beta1/clusters?watch=true&resourceVersion=${rv}`);
    await stale.end();
    assert.equal(stale.events[0]!.object.reason, "Expired");

    const fresh = (await call(api, "GET", `${CAPI}/v1beta1/clusters?limit=1`)).body.metadata.resourceVersion;
    const resumed = watch(api, `${CAPI}/v1beta1/clusters?watch=true&resourceVersion=${fresh}&timeoutSeconds=30`);
    api.updateCapiCluster("team-a", "a1", (c) => (c.phase = "Provisioned"));
    await resumed.count(1);
    assert.equal(resumed.events[0]!.type, "MODIFIED");
    assert.equal(resumed.ended(), false);
    resumed.close();
  });

  test("server-side apply owns annotations per field manager: an omitted own key goes, others' stay", async () => {
    api.addCapiCluster({ namespace: "ssa", name: "c1", annotations: { "capi.example/owner": "platform" } });
    const path = `${CAPI}/v1beta1/namespaces/ssa/clusters/c1`;
    const apply = (annotations: Record<string, string>, manager = "fleet-registry-capi", force = false) =>
      call(api, "PATCH", `${path}?fieldManager=${manager}${force ? "&force=true" : ""}`, {
        contentType: applyType,
        body: [
          "apiVersion: cluster.x-k8s.io/v1beta1",
          "kind: Cluster",
          "metadata:",
          "  name: c1",
          "  namespace: ssa",
          "  annotations:",
          ...Object.entries(annotations).map(([k, v]) => `    ${k}: "${v}"`),
        ].join("\n"),
      });
    const rv0 = api.capiCluster("ssa", "c1")!.metadata.resourceVersion;
    const first = await apply({ "fleet-registry/do-not-import": "by admin", "fleet-registry/seen": "yes" });
    assert.equal(first.status, 200);
    assert.notEqual(first.body.metadata.resourceVersion, rv0);
    await apply({ "fleet-registry/do-not-import": "by admin" });
    assert.deepEqual(api.capiCluster("ssa", "c1")!.metadata.annotations, {
      "capi.example/owner": "platform",
      "fleet-registry/do-not-import": "by admin",
    });

    const conflict = await apply({ "fleet-registry/do-not-import": "by someone else" }, "other");
    assert.equal(conflict.status, 409);
    assert.match(
      conflict.body.message,
      /conflict with "fleet-registry-capi": \.metadata\.annotations\.fleet-registry\/do-not-import/,
    );
    assert.equal((await apply({ "fleet-registry/do-not-import": "by someone else" }, "other", true)).status, 200);
    // The forced applier took the key: fleet-registry-capi leaving it out no longer removes it.
    await apply({});
    assert.equal(api.capiCluster("ssa", "c1")!.metadata.annotations["fleet-registry/do-not-import"], "by someone else");

    const merged = await call(api, "PATCH", path, {
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { "fleet-registry/do-not-import": null, "capi.example/owner": "team" } } },
    });
    assert.equal(merged.status, 200);
    assert.deepEqual(merged.body.metadata.annotations, { "capi.example/owner": "team" });
    assert.equal(
      (
        await call(api, "PATCH", path, {
          contentType: applyType,
          body: { apiVersion: "cluster.x-k8s.io/v1beta1", kind: "Cluster", metadata: { name: "c1" } },
        })
      ).status,
      400,
      "fieldManager is required",
    );
    assert.deepEqual(
      api.appliedObjects().map((a) => a.fieldManager),
      ["fleet-registry-capi", "fleet-registry-capi", "other", "fleet-registry-capi"],
    );
  });
});

describe("workload cluster: server-side apply of the agent's manifest", () => {
  const objects = agentManifestObjects({
    agentUrl: "https://fleet.example.com:8443",
    caFingerprint: "AB".repeat(32),
    agentImage: "registry.example.com/fleet/agent:1.4.0",
    clusterName: "w1",
    labels: {},
    token: "frt_secret",
  });
  const pathOf = (o: (typeof objects)[number]) => {
    const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
    const plural = `${o.kind.toLowerCase()}s`;
    const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : "";
    return `${group ? `/apis/${group}/${version}` : `/api/${version}`}${ns}/${plural}/${o.metadata.name}`;
  };
  /** In the manifest's order, as the server applies it. */
  const applyAll = async (kube: FakeKubeApi, token: string) => {
    const replies: { o: (typeof objects)[number]; r: Reply }[] = [];
    for (const o of objects) {
      const r = await call(kube, "PATCH", `${pathOf(o)}?fieldManager=fleet-registry-capi&force=true`, {
        contentType: applyType,
        body: o,
        token,
      });
      replies.push({ o, r });
    }
    return replies;
  };

  test("every object is created (201) with its effects; applying again updates (200); 403 names the resource", async () => {
    const kube = old;
    kube.applyForbidden.add("namespaces");
    const refused = await call(kube, "PATCH", `${pathOf(objects[0]!)}?fieldManager=fleet-registry-capi`, {
      contentType: applyType,
      body: objects[0],
      token: ADMIN,
    });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /namespaces "fleet-system" is forbidden: .* cannot patch resource "namespaces"/);
    kube.applyForbidden.clear();

    for (const { o, r } of await applyAll(kube, ADMIN)) {
      // The fake always holds a Deployment of the agent's name: applying it updates that one.
      assert.equal(r.status, o.kind === "Deployment" ? 200 : 201, `${o.kind} ${o.metadata.name}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.metadata.uid && r.body.metadata.resourceVersion, o.kind);
    }
    assert.ok(kube.cluster.namespaces.includes("fleet-system"));
    assert.equal(kube.secretText("fleet-agent-token", "token"), "frt_secret");
    assert.ok(kube.namespaceRules?.length, "the agent's Role governs its namespace");
    assert.ok(kube.roleBindings.has("fleet-system/fleet-agent") && kube.clusterRoleBindings.has("fleet-agent"));
    assert.equal(kube.deploymentState().image, "registry.example.com/fleet/agent:1.4.0");
    const managers = (kube.deployment.metadata as { managedFields: { manager: string }[] }).managedFields;
    assert.deepEqual(
      managers.map((f) => f.manager),
      ["fleet-registry-capi"],
    );

    kube.addSecret("fleet-agent-state", { "tombstone.json": "{}" });
    const again = await applyAll(kube, ADMIN);
    assert.ok(
      again.every(({ r }) => r.status === 200),
      "applied again: updated",
    );
    assert.equal(kube.secretText("fleet-agent-state", "tombstone.json"), "{}", "keys the manifest does not name stay");
    assert.equal(kube.appliedObjects().length, objects.length * 2);
    assert.ok(kube.appliedObjects().every((a) => a.fieldManager === "fleet-registry-capi" && a.force));

    const asAgent = await call(kube, "PATCH", `${pathOf(objects.find((o) => o.kind === "RoleBinding")!)}?fieldManager=x`, {
      contentType: applyType,
      body: objects.find((o) => o.kind === "RoleBinding"),
      token: TOKEN,
    });
    assert.equal(asAgent.status, 403, "the agent's own token is held to its Role; an admin's is not");

    const profile = await call(
      kube,
      "PATCH",
      "/apis/multicluster.x-k8s.io/v1alpha1/namespaces/fleet-system/clusterprofiles/p1?fieldManager=x",
      {
        contentType: applyType,
        body: { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ClusterProfile", metadata: { name: "p1" }, spec: {} },
        token: ADMIN,
      },
    );
    assert.equal(profile.status, 201, "other kinds' apply keeps its own handler");
  });
});
