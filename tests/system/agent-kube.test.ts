// The reference agent as a real process reading a cluster through the Kubernetes REST contract
// (tests/helpers/fake-kube-api.ts: no API server runs on these machines), registering with the
// real control plane on the engine TEST_ENGINE selects. Asserts what the control plane shows and
// the exact requests the agent made to the cluster's API. In a pod it is what ships: the bundle
// Dockerfile.agent builds, started by the console manifest's command line (tests/helpers/agent-pod.ts);
// from a laptop, `npm run agent` from the checkout.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import crypto, { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { KUBE_CALLS, type KubeCallName } from "@/lib/domain/agent-kube-calls";
import { agentManifestObjects } from "@/lib/domain/agent-manifest";
import { registerCluster } from "../helpers/agent-client";
import { buildAgentImage, startAgentPod, type AgentPod } from "../helpers/agent-pod";
import type { BuiltImage } from "../helpers/container-image";
import { FakeKubeApi, type RecordedRequest } from "../helpers/fake-kube-api";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { aksCluster, eksCluster, gkeCluster } from "../helpers/kube-clusters";
import { until } from "../helpers/until";

const IMAGE = "registry.example.com/fleet/agent:1.4.0";
const AGENT_VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { agentVersion: string }).agentVersion;
let server: FleetServer;
let fleetCa: string;
let image: BuiltImage;

before(async () => {
  // Dockerfile.agent's build, once for the file (one esbuild run).
  image = buildAgentImage();
  server = await startFleetServer({ AGENT_IMAGE: IMAGE });
  const s = await server.api("PATCH", "/api/v1/settings", { heartbeatIntervalSeconds: 1, disconnectTimeoutSeconds: 30 });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  fleetCa = (await server.api("GET", "/api/v1/fleet")).body.caFingerprint;
});
after(async () => {
  await server?.stop();
  image?.dispose();
});

async function mint(name: string) {
  const t = await server.api("POST", "/api/v1/registration-tokens", { name, maxClusters: 1 });
  assert.equal(t.status, 201, JSON.stringify(t.body));
  return t.body.token as string;
}

function startAgent(args: string[], env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "lib/agent/cli.ts",
      "--server",
      server.agentUrl,
      "--ca-fingerprint",
      fleetCa,
      "--heartbeat-interval",
      "1",
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, KUBECONFIG: "", KUBERNETES_SERVICE_HOST: "", ...env } },
  );
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, exited, output: () => output };
}

/** The KUBE_CALLS entry a recorded request is, or null: every request must be one of them. */
function callOf(r: RecordedRequest): KubeCallName | null {
  const verbOf = (call: (typeof KUBE_CALLS)[KubeCallName]) =>
    ({ get: "GET", list: "GET", watch: "GET", update: "PUT", patch: "PATCH", delete: "DELETE", create: "POST" })[call.verb];
  const patterns: [KubeCallName, RegExp][] = [
    ["version", /^\/version$/],
    ["readyz", /^\/readyz$/],
    ["listNodes", /^\/api\/v1\/nodes$/],
    ["cordonNode", /^\/api\/v1\/nodes\/[^/]+$/],
    ["listPods", /^\/api\/v1\/pods$/],
    ["listNamespaces", /^\/api\/v1\/namespaces$/],
    ["getKubeSystemNamespace", /^\/api\/v1\/namespaces\/kube-system$/],
    ["listDaemonSets", /^\/apis\/apps\/v1\/daemonsets$/],
    ["getMetricsApiService", /^\/apis\/apiregistration\.k8s\.io\/v1\/apiservices\/v1beta1\.metrics\.k8s\.io$/],
    ["getClusterInfo", /^\/api\/v1\/namespaces\/kube-public\/configmaps\/cluster-info$/],
    ["getStateSecret", /^\/api\/v1\/namespaces\/fleet-system\/secrets\/fleet-agent-state$/],
    ["updateStateSecret", /^\/api\/v1\/namespaces\/fleet-system\/secrets\/fleet-agent-state$/],
    ["deleteOwnRoleBinding", /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/namespaces\/fleet-system\/rolebindings\/fleet-agent$/],
    [
      "deleteClusterInfoRoleBinding",
      /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/namespaces\/kube-public\/rolebindings\/fleet-agent-cluster-info$/,
    ],
    ["deleteClusterRoleBinding", /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/clusterrolebindings\/fleet-agent$/],
    ["deleteNodeActionsBinding", /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/clusterrolebindings\/fleet-agent-node-actions$/],
    ["getTokenSecret", /^\/api\/v1\/namespaces\/fleet-system\/secrets\/fleet-agent-token$/],
    ["deleteTokenSecret", /^\/api\/v1\/namespaces\/fleet-system\/secrets\/fleet-agent-token$/],
    ["getDeployment", /^\/apis\/apps\/v1\/namespaces\/fleet-system\/deployments\/fleet-agent$/],
    ["patchDeployment", /^\/apis\/apps\/v1\/namespaces\/fleet-system\/deployments\/fleet-agent$/],
    ["getLease", /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/fleet-system\/leases\/fleet-agent$/],
    ["updateLease", /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/fleet-system\/leases\/fleet-agent$/],
    ["createLease", /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/fleet-system\/leases$/],
    ["evictPod", /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/eviction$/],
  ];
  return patterns.find(([name, re]) => re.test(r.path) && verbOf(KUBE_CALLS[name]) === r.method)?.[0] ?? null;
}

function assertOnlyKnownCalls(kube: FakeKubeApi) {
  const unknown = kube.requests.filter((r) => !callOf(r)).map((r) => `${r.method} ${r.path}`);
  assert.deepEqual(unknown, [], "every request the agent made is a call of KUBE_CALLS (which the manifest's RBAC grants)");
}

test("in a pod (EKS), as it ships: the image's bundle run by the manifest's command line as uid 65532 on a read-only root; state and token in Secrets, real facts on the cluster page, upgrade patches the Deployment, disconnect scales it to 0, drops its bindings and leaves a tombstone a re-applied manifest idles on", async () => {
  const saToken = "eyJhbGciOiJSUzI1NiIsImtpZCI6InNhIn0." + crypto.randomBytes(24).toString("base64url");
  const kube = await new FakeKubeApi(eksCluster(), { tokens: [saToken], maxPage: 7 }).start();
  const install = {
    agentUrl: server.agentUrl,
    caFingerprint: fleetCa,
    agentImage: IMAGE,
    clusterName: "eks-prod-eu",
    labels: { env: "prod", region: "eu-west-1" },
    token: await mint("eks"),
  };
  const agent = await startAgentPod(image, install, kube, saToken);
  let restarted: AgentPod | null = null;
  assert.deepEqual(
    agent.argv.slice(0, 3),
    ["/nodejs/bin/node", "/app/agent.mjs", "--server"],
    "the script, then the manifest's args",
  );
  assert.equal(agent.uid, 65532, "the image's USER: the pod pins none");
  try {
    const id = await until(
      "the cluster Ready with its facts",
      async () => {
        const c = (await server.api("GET", "/api/v1/clusters?q=eks-prod-eu")).body.items?.[0];
        if (c?.status !== "Ready") return false;
        const d = (await server.api("GET", `/api/v1/clusters/${c.id}`)).body;
        return d.nodePools?.length === 2 && d.workloads?.userPods != null && (c.id as string);
      },
      60_000,
      agent.output,
    );
    const c = (await server.api("GET", `/api/v1/clusters/${id}`)).body;
    // The manifest ships no Lease (Argo CD's default exclusions would leave it out anyway): the
    // agent created its own, with the Role's unnamed `create` (the fake API answers by the Role).
    assert.equal(
      kube.requests.filter((r) => r.method === "POST" && r.path === "/apis/coordination.k8s.io/v1/namespaces/fleet-system/leases")
        .length,
      1,
    );
    assert.match(String(kube.leases.get("fleet-system/fleet-agent")?.spec.holderIdentity), /\S/, "held by the pod");
    assert.equal(c.kubernetesVersion, "1.31.4");
    assert.equal(c.agentVersion, AGENT_VERSION, "the build's own version (package.json's), baked into the bundle");
    // The kubelet's probes, on both address families of the pod (the agent listens on ::).
    for (const host of ["127.0.0.1", "[::1]"]) {
      assert.equal((await fetch(`http://${host}:${agent.healthPort}/healthz`)).status, 200, host);
      assert.equal(
        (await fetch(`http://${host}:${agent.healthPort}/readyz`)).status,
        200,
        `${host}: registered and heartbeating`,
      );
    }
    assert.ok(
      kube.requests.every((r) => r.userAgent === `fleet-agent/${AGENT_VERSION}`),
      "every API request names the agent and its version",
    );
    assert.deepEqual(
      c.nodePools.map((p: Record<string, unknown>) => [
        p.name,
        p.nodeCount,
        p.readyNodes,
        p.kubeletVersion,
        p.instanceType,
        p.cpuCores,
        p.memoryGiB,
      ]),
      [
        ["apps", 4, 2, "1.30.8", "m5.xlarge", 15.68, 57.7],
        ["system", 2, 2, "1.31.4", "m5.large", 3.86, 13.8],
      ],
    );
    assert.deepEqual(c.workloads, { pods: 39, namespaces: 8, userPods: 17 });
    assert.deepEqual(c.health, { apiServer: "ok", logs: true, metrics: true });
    assert.equal(c.apiServerUrl, "https://4A1B2C3D4E5F.gr7.eu-west-1.eks.amazonaws.com", "from kube-public/cluster-info");
    const der = new crypto.X509Certificate(kube.caPem).raw;
    assert.equal(c.caFingerprint, "sha256:" + crypto.createHash("sha256").update(der).digest("hex"), "the in-cluster ca.crt");
    assert.equal(c.clusterUid, kube.kubeSystemUid, "the kube-system namespace's UID, stored as the cluster's identity");

    // The token Secret was deleted through the API; the identity lives in the state Secret.
    assert.ok(kube.requests.some((r) => r.method === "DELETE" && r.path.endsWith("/secrets/fleet-agent-token")));
    assert.equal(kube.secrets.has("fleet-system/fleet-agent-token"), false);
    assert.equal(JSON.parse(kube.secretText("fleet-agent-state", "cluster.json")!).clusterId, id);
    assert.match(kube.secretText("fleet-agent-state", "key.pem")!, /BEGIN PRIVATE KEY/);
    assert.equal(kube.secretText("fleet-agent-state", "pending-key.pem"), undefined, "the pending key is gone once registered");
    // Pods are read as metadata only, non-terminal, page by page.
    const podLists = kube.requests.filter((r) => r.path === "/api/v1/pods");
    assert.ok(podLists.every((r) => r.accept.includes("as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")));
    assert.ok(podLists.every((r) => r.query.fieldSelector === "status.phase!=Succeeded,status.phase!=Failed"));
    assert.ok(
      podLists.some((r) => r.query.continue),
      "the 7-item pages were followed with continue",
    );

    // /readyz failing: the cluster page says degraded within a few of the server's 1 s intervals
    // (not after the 30 s the agent waited before it knew the server's interval).
    kube.readyz = 500;
    await until(
      "apiServer degraded",
      async () => (await server.api("GET", `/api/v1/clusters/${id}`)).body.health.apiServer === "degraded",
      10_000,
      () => agent.output().slice(-3000),
    );
    kube.readyz = "ok";
    await until("apiServer ok", async () => (await server.api("GET", `/api/v1/clusters/${id}`)).body.health.apiServer === "ok");

    // A staged rollout becomes real: the agent patches its own Deployment's image.
    const rollout = await server.api("POST", "/api/v1/rollouts", {
      name: "agent 1.5.0",
      targetVersion: "1.5.0",
      selector: "env=prod,region=eu-west-1",
      stages: [{ name: "all", percent: 100 }],
      clusterTimeoutSeconds: 600,
    });
    assert.equal(rollout.status, 201, JSON.stringify(rollout.body));
    await until(
      "the image patched",
      async () => kube.deploymentState().image === "registry.example.com/fleet/agent:1.5.0",
      30_000,
      agent.output,
    );
    const patch = kube.requests.find((r) => r.method === "PATCH" && r.path.endsWith("/deployments/fleet-agent"))!;
    assert.deepEqual(
      [patch.contentType, patch.query.fieldManager],
      ["application/apply-patch+yaml", "fleet-agent"],
      "server-side apply as its own field manager",
    );
    const applied = patch.body as {
      metadata: { annotations: Record<string, string> };
      spec: { template: { spec: { containers: { image: string; args: string[] }[] } } };
    };
    assert.ok(applied.metadata.annotations["fleet-registry.io/install"], "regenerated from the recorded install options");
    const generated = agentManifestObjects({ ...install, agentImage: "registry.example.com/fleet/agent:1.5.0" }).find(
      (o) => o.kind === "Deployment",
    )!;
    assert.deepEqual(applied.spec, generated.spec, "the whole Deployment of the new version, not only its image");
    // The fake has no kubelet to start the new pod: abort, and leave the fleet.
    const aborted = await server.api("POST", `/api/v1/rollouts/${rollout.body.id}/actions`, { action: "abort" });
    assert.equal(aborted.status, 200, JSON.stringify(aborted.body));
    await until("phase Active", async () => (await server.api("GET", `/api/v1/clusters/${id}`)).body.phase === "Active");

    const act = (body: Record<string, unknown>) => server.api("POST", `/api/v1/clusters/${id}/deregistration`, body);
    assert.equal((await act({ action: "start" })).status, 200);
    // Draining waits for the user pods (17), not all pods (39): system pods never go away.
    await until(
      "the wizard shows the user pods",
      async () => (await server.api("GET", `/api/v1/clusters/${id}/deregistration`)).body.workloads.pods === 17,
    );
    assert.equal((await act({ action: "confirm-workloads" })).status, 409, "17 user pods left: not without force");
    assert.equal((await act({ action: "confirm-workloads", force: true, reason: "moved by the platform team" })).status, 200);
    assert.equal((await act({ action: "disconnect" })).status, 200);
    const code = await Promise.race([agent.exited, new Promise<string>((r) => setTimeout(() => r("still running"), 30_000))]);
    assert.equal(code, 0, `agent exit: ${code}\n${agent.output()}`);
    assert.deepEqual(
      Object.keys(kube.secrets.get("fleet-system/fleet-agent-state")!.data),
      ["tombstone.json"],
      "the credentials are gone, a tombstone is left",
    );
    assert.deepEqual(
      { ...JSON.parse(kube.secretText("fleet-agent-state", "tombstone.json")!), at: "-" },
      { clusterId: id, name: "eks-prod-eu", reason: "disconnected", at: "-" },
    );
    assert.equal(kube.deploymentState().replicas, 0, "the Deployment was scaled to 0");
    assert.deepEqual([...kube.roleBindings, ...kube.clusterRoleBindings], [], "no binding grants the agent anything");
    const scale = kube.requests.filter((r) => r.method === "PATCH" && r.path.endsWith("/deployments/fleet-agent")).at(-1)!;
    assert.equal(scale.contentType, "application/merge-patch+json");
    assert.deepEqual(scale.body, { spec: { replicas: 0 } });
    assert.match(agent.output(), /LEFT_FOR_ADMIN .*kubectl delete namespace fleet-system/);

    // GitOps re-applies the manifest (bindings, the used token, replicas 1; kubectl apply keeps the
    // tombstone, a key the manifest does not name). The pod idles with one line instead of
    // registering with a used token and crash-looping.
    restarted = await startAgentPod(image, install, kube, saToken);
    await until("the restarted agent idles", async () => /STATE_TOMBSTONE/.test(restarted!.output()), 30_000, restarted.output);
    assert.match(restarted.output(), /was disconnected from the fleet at .*idling instead of registering again/);
    const idle = await Promise.race([restarted.exited, new Promise<string>((r) => setTimeout(() => r("running"), 3_000))]);
    assert.equal(idle, "running", restarted.output());
    assert.equal(restarted.output().match(/STATE_TOMBSTONE/g)?.length, 1);
    assert.doesNotMatch(restarted.output(), /REGISTERING/);
    restarted.child.kill("SIGTERM");
    assert.equal(await restarted.exited, 0, "SIGTERM stops the idle agent cleanly");
    assertOnlyKnownCalls(kube);
  } finally {
    restarted?.child.kill("SIGKILL");
    agent.child.kill("SIGKILL");
    await kube.stop();
  }
});

/** An agent in a pod of a fresh AKS-shaped cluster, registered and Ready; returns its cluster id. */
async function agentInPod(name: string, flags: string[] = []) {
  const saToken = "eyJhbGciOiJSUzI1NiIsImtpZCI6InNhIn0." + crypto.randomBytes(24).toString("base64url");
  const kube = await new FakeKubeApi(aksCluster(), { tokens: [saToken] }).start();
  const saDir = kube.layOutServiceAccount(mkdtempSync(path.join(tmpdir(), "fleet-pod-")), saToken);
  kube.addSecret("fleet-agent-token", { token: await mint(name) });
  kube.addSecret("fleet-agent-state");
  // As an older manifest created it (the agent creates a missing one).
  kube.addLease("fleet-agent");
  kube.addAgentBindings();
  const agent = startAgent(
    [
      ...["--name", name, "--labels", "env=prod,region=westeurope"],
      ...["--state-secret", "fleet-system/fleet-agent-state", "--token-secret", "fleet-system/fleet-agent-token"],
      ...flags,
    ],
    { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(kube.port), FLEET_AGENT_SERVICE_ACCOUNT_DIR: saDir },
  );
  const id = await until(
    `${name} Ready with its facts`,
    async () => {
      const c = (await server.api("GET", `/api/v1/clusters?q=${name}`)).body.items?.[0];
      if (c?.status !== "Ready") return false;
      return (await server.api("GET", `/api/v1/clusters/${c.id}`)).body.nodePools?.length === 2 && (c.id as string);
    },
    60_000,
    agent.output,
  );
  return { kube, agent, id };
}

// The Lease's duration is 3 s here (renewed every 0.5 s, held for 2 s after a renewal) and every
// API request times out after 5 s, so 20 s of an API server answering in 20 s spans more than six
// lease durations: what a default 30 s Lease sees of a three-minute outage, in a bounded test.
test("an API server answering in 20 s for several lease durations: heartbeats go on reporting it, the cluster stays Ready, the agent keeps its Lease", async () => {
  const threshold = await server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: 10 });
  assert.equal(threshold.status, 200, JSON.stringify(threshold.body));
  const { kube, agent, id } = await agentInPod("aks-slow", ["--lease-duration", "3", "--timeout", "5"]);
  let exited: number | null | undefined;
  void agent.exited.then((code) => (exited = code));
  try {
    kube.delayMs = 20_000;
    const slowFrom = Date.now();
    const statuses = new Set<string>();
    const health = new Set<string>();
    while (Date.now() - slowFrom < 20_000) {
      const d = (await server.api("GET", `/api/v1/clusters/${id}`)).body;
      statuses.add(d.status);
      if (Date.parse(d.lastHeartbeatAt) > slowFrom) health.add(d.health?.apiServer);
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(exited, undefined, `the agent is still running:\n${agent.output()}`);
    assert.deepEqual([...statuses], ["Ready"], agent.output());
    assert.ok(
      health.has("degraded") || health.has("down"),
      `heartbeats during the slow period reported the API server as it was: ${[...health]}`,
    );
    assert.match(
      agent.output(),
      /LEASE_RENEW_FAILING .*heartbeats go on/,
      "the Lease went unrenewed for longer than its duration",
    );
    assert.doesNotMatch(agent.output(), /LEASE_LOST/);

    kube.delayMs = 0;
    const detail = await until(
      "the API server reported ok again",
      async () => {
        const d = (await server.api("GET", `/api/v1/clusters/${id}`)).body;
        statuses.add(d.status);
        return d.health?.apiServer === "ok" && /renewed the Lease fleet-system\/fleet-agent again/.test(agent.output()) && d;
      },
      30_000,
      agent.output,
    );
    assert.deepEqual([...statuses], ["Ready"]);
    assert.equal(kube.leases.get("fleet-system/fleet-agent")?.spec.holderIdentity, os.hostname(), "still the holder");
    const notReady = (detail.events as { to: string; at?: string }[]).filter((e) => e.to === "NotReady");
    assert.deepEqual(notReady, []);
    assert.deepEqual(detail.nodePools.length, 2, "the last facts read were reported throughout");
    assert.equal(exited, undefined);
  } finally {
    agent.child.kill("SIGKILL");
    await kube.stop();
    await server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: 60 });
  }
});

test("from a laptop (--kubeconfig, GKE): facts, and drainNodePool cordons then evicts through the Eviction API, waiting on a PDB's 429", async () => {
  const kube = await new FakeKubeApi(gkeCluster(), { tokens: ["laptop-admin-token"] }).start();
  const dir = mkdtempSync(path.join(tmpdir(), "fleet-laptop-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kube.kubeconfig("laptop-admin-token"));
  const tokenFile = path.join(dir, "token");
  writeFileSync(tokenFile, await mint("gke"));
  const highmem = kube.cluster.pods.filter((p) => p.spec.nodeName.includes("highmem") && p.metadata.namespace === "search");
  kube.pdbBlocks.set(highmem[0]!.metadata.name, 2);
  let agent: { child: ChildProcess; exited: Promise<number | null>; output: () => string } | null = null;
  try {
    agent = startAgent(
      [
        "--kubeconfig",
        kubeconfig,
        "--name",
        "gke-prod-us",
        "--labels",
        "env=prod,region=us",
        "--token-file",
        tokenFile,
        "--state-dir",
        path.join(dir, "state"),
        "--allow-node-actions",
      ],
      {},
    );
    const out = agent.output;
    const id = await until(
      "the cluster Ready with its pools",
      async () => {
        const c = (await server.api("GET", "/api/v1/clusters?q=gke-prod-us")).body.items?.[0];
        if (c?.status !== "Ready") return false;
        return (await server.api("GET", `/api/v1/clusters/${c.id}`)).body.nodePools?.length === 2 && (c.id as string);
      },
      60_000,
      out,
    );
    const c = (await server.api("GET", `/api/v1/clusters/${id}`)).body;
    assert.equal(c.kubernetesVersion, "1.30.5");
    assert.equal(c.apiServerUrl, kube.url, "no cluster-info: the kubeconfig's server");
    assert.deepEqual(c.health, { apiServer: "ok", logs: true, metrics: false });
    assert.deepEqual(c.workloads, { pods: 35, namespaces: 8, userPods: 24 });

    const retire = await server.api("POST", `/api/v1/clusters/${id}/node-pools/highmem/retire`, { reason: "moving to n2d" });
    assert.equal(retire.status, 200, JSON.stringify(retire.body));
    await until(
      "drainNodePool done",
      async () => /DIRECTIVE_DONE .*drainNodePool/.test(out()),
      30_000,
      () => `agent output:\n${out()}`,
    );
    const cordons = kube.requests.filter((r) => r.method === "PATCH" && r.path.startsWith("/api/v1/nodes/"));
    assert.deepEqual(
      cordons.map((r) => [r.path, r.contentType, JSON.stringify(r.body)]),
      ["gke-prod-us-highmem-5e6f7a8b-p2l1", "gke-prod-us-highmem-5e6f7a8b-r8t6"].map((n) => [
        `/api/v1/nodes/${n}`,
        "application/strategic-merge-patch+json",
        '{"spec":{"unschedulable":true}}',
      ]),
    );
    const evictions = kube.requests.filter((r) => r.path.endsWith("/eviction"));
    const firstEviction = kube.requests.findIndex((r) => r.path.endsWith("/eviction"));
    assert.ok(firstEviction > kube.requests.indexOf(cordons.at(-1)!), "cordon first, then evict");
    const blocked = evictions.filter((r) => r.path.includes(highmem[0]!.metadata.name));
    assert.equal(blocked.length, 3, "the PDB-protected pod was tried again after each 429 until it was allowed");
    assert.deepEqual(evictions[0]!.body, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: evictions[0]!.path.split("/")[6], namespace: evictions[0]!.path.split("/")[4] },
    });
    // DaemonSet pods on those nodes are left alone; the user pods there are gone.
    assert.ok(!evictions.some((r) => /fluentbit-gke|gke-metrics-agent/.test(r.path)));
    assert.equal(
      kube.cluster.pods.filter((p) => p.spec.nodeName.includes("highmem") && p.metadata.namespace === "search").length,
      0,
    );
    assertOnlyKnownCalls(kube);
  } finally {
    agent?.child.kill("SIGKILL");
    await kube.stop();
  }
});

test("the protocol's new fields server-side: capabilities filter directives, a failed ack closes its directive with the reason shown, userPods drive the drain", async () => {
  const { clusterId: id, client } = await registerCluster(server, "acks-1", { body: { labels: { env: "dev", region: "eu" } } });
  const hb = (over: Record<string, unknown>) =>
    server.agent(
      "POST",
      "/api/agent/v1/heartbeat",
      {
        agentVersion: "1.4.0",
        kubernetesVersion: "1.30.2",
        nodePools: [
          { name: "spot", nodeCount: 2, readyNodes: 2 },
          { name: "general", nodeCount: 3, readyNodes: 3 },
        ],
        workloads: { pods: 50, namespaces: 5, userPods: 4 },
        health: { apiServer: "ok", logs: true, metrics: true },
        acks: [],
        ...over,
      },
      { client },
    );
  assert.equal((await hb({})).status, 200);
  await until("the pools stored", async () => (await server.api("GET", `/api/v1/clusters/${id}`)).body.nodePools?.length === 2);
  const retired = await server.api("POST", `/api/v1/clusters/${id}/node-pools/spot/retire`, { reason: "spot is gone" });
  assert.equal(retired.status, 200, JSON.stringify(retired.body));

  // An agent that says it cannot drain node pools is not sent drainNodePool; an older one (no capabilities) is.
  const limited = await hb({ capabilities: ["disconnect", "upgrade", "drain"] });
  assert.deepEqual(limited.body.directives, []);
  const older = await hb({});
  const directive = older.body.directives.find((d: { type: string }) => d.type === "drainNodePool");
  assert.ok(directive, JSON.stringify(older.body));

  // A failed ack: the directive is closed (not sent again) and the cluster shows why.
  const bad = await hb({ acks: [{ id: directive.id, ok: true, reason: "x" }] });
  assert.equal(bad.status, 400, "only ok:false objects are acks with a reason");
  assert.equal(bad.body.error, "invalid_request");
  const reason = "node actions are off on this agent: run it with --allow-node-actions";
  assert.equal((await hb({ acks: [{ id: directive.id, ok: false, reason }] })).status, 200);
  assert.deepEqual((await hb({})).body.directives, []);
  const detail = (await server.api("GET", `/api/v1/clusters/${id}`)).body;
  assert.deepEqual(
    detail.failedDirectives.map((d: { type: string; reason: string }) => [d.type, d.reason]),
    [["drainNodePool", reason]],
  );
  assert.equal(detail.workloads.userPods, 4);

  // Draining waits for the user pods: 4 of 50 here.
  assert.equal((await server.api("POST", `/api/v1/clusters/${id}/deregistration`, { action: "start" })).status, 200);
  assert.equal((await server.api("GET", `/api/v1/clusters/${id}/deregistration`)).body.workloads.pods, 4);
  await hb({ workloads: { pods: 31, namespaces: 5, userPods: 0 } });
  await until(
    "user pods at zero",
    async () => (await server.api("GET", `/api/v1/clusters/${id}/deregistration`)).body.workloads.pods === 0,
  );
  const moved = await server.api("POST", `/api/v1/clusters/${id}/deregistration`, { action: "confirm-workloads" });
  assert.equal(moved.body.step, "workloads-moved", "31 system pods remain, but no user pod: no force needed");
});

// Last in this file: the fleet CA stays mid-rollover for the server of these tests.
test("a fleet CA rollover with the agent in a pod: it rotates onto the new CA and acknowledges the directive", async () => {
  const { kube, agent, id } = await agentInPod("aks-rollover");
  try {
    const started = await server.api("POST", "/api/v1/ca/rollover", {});
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const newFp = started.body.cas[1].fingerprint as string;
    const bundle = String((await server.agent("GET", "/api/agent/v1/ca")).body);
    const newCa = new X509Certificate(
      bundle
        .match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!
        .find((pem) => "sha256:" + crypto.createHash("sha256").update(new X509Certificate(pem).raw).digest("hex") === newFp)!,
    );
    await until(
      "the certificate in the state Secret issued by the new CA",
      async () => {
        const pem = kube.secretText("fleet-agent-state", "cert.pem");
        return !!pem && new X509Certificate(pem).checkIssued(newCa);
      },
      60_000,
      agent.output,
    );
    await until(
      "the cluster counted on the new CA",
      async () => {
        const s = (await server.api("GET", "/api/v1/ca")).body;
        return s.rollover?.byIssuer.find((b: { fingerprint: string }) => b.fingerprint === newFp)?.clusters >= 1;
      },
      30_000,
      agent.output,
    );
    await until(
      "heartbeats on the new certificate",
      async () => (await server.api("GET", `/api/v1/clusters/${id}`)).body.status === "Ready",
    );
    const detail = (await server.api("GET", `/api/v1/clusters/${id}`)).body;
    assert.deepEqual(detail.failedDirectives ?? [], [], "the rotate directive was not failed");
    assert.match(agent.output(), /ROTATED/);
    assert.doesNotMatch(agent.output(), /DIRECTIVE_FAILED|DIRECTIVE_UNKNOWN/);
  } finally {
    agent.child.kill("SIGKILL");
    await kube.stop();
  }
});
