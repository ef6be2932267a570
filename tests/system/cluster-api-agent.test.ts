// Cluster API end to end, with the built server as it ships on the engine TEST_ENGINE selects:
// a source added through the admin API watches a loopback management cluster
// (tests/helpers/fake-kube-api.ts); a CAPI Cluster opted in appears as Provisioning, and once its
// control plane is initialised the server reads its kubeconfig Secret and server-side applies the
// agent's manifest into a second loopback API server, the workload cluster. The agent then runs
// from Dockerfile.agent's bundle exactly as that applied Deployment says (tests/helpers/agent-pod.ts),
// registers with the token the server applied, and the cluster turns Ready with nobody applying
// anything. Cluster API deleting it deregisters it (no drain); gone, it leaves the fleet.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, test } from "node:test";
import { CAPI_FIELD_MANAGER, OPT_IN_VALUE } from "@/lib/domain/cluster-api";
import { buildAgentImage, startDeploymentPod, type AgentPod } from "../helpers/agent-pod";
import type { BuiltImage } from "../helpers/container-image";
import { FakeKubeApi } from "../helpers/fake-kube-api";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { eksCluster } from "../helpers/kube-clusters";
import { until } from "../helpers/until";

const IMAGE = "registry.example.com/fleet/agent:1.4.0";
const MGMT_TOKEN = "mgmt-admin-token-5b7d";
const WORKLOAD_TOKEN = "workload-admin-token-2e4f";
const OPT_IN = "fleet-registry/auto-register";

let server: FleetServer;
let image: BuiltImage;
let mgmt: FakeKubeApi;
let workload: FakeKubeApi;
let pod: AgentPod | null = null;

before(async () => {
  image = buildAgentImage();
  server = await startFleetServer({ AGENT_IMAGE: IMAGE, AGENT_HOSTNAMES: "127.0.0.1" });
  const s = await server.api("PATCH", "/api/v1/settings", { heartbeatIntervalSeconds: 1 });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  mgmt = await new FakeKubeApi(eksCluster(), { tokens: [], adminTokens: [MGMT_TOKEN] }).start();
});

after(async () => {
  pod?.child.kill("SIGKILL");
  await pod?.exited;
  await server?.stop();
  await Promise.all([mgmt?.stop(), workload?.stop()]);
  image?.dispose();
});

test("a CAPI Cluster joins by itself (the agent applied by the server registers, Ready) and leaves when Cluster API deletes it", async () => {
  const saToken = "eyJhbGciOiJSUzI1NiIsImtpZCI6InNhIn0." + crypto.randomBytes(24).toString("base64url");
  workload = await new FakeKubeApi(eksCluster(), { tokens: [saToken], adminTokens: [WORKLOAD_TOKEN] }).start();

  const created = await server.api("POST", "/api/v1/cluster-api/sources", {
    name: "mgmt",
    kubeconfig: mgmt.kubeconfig(MGMT_TOKEN),
    fixedLabels: { env: "prod", region: "eu-west-1" },
    allowPrivateTargets: true,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.ok(!JSON.stringify(created.body).includes(MGMT_TOKEN), "the kubeconfig is never returned");

  mgmt.addNamespace("capi");
  mgmt.addCapiCluster({ namespace: "capi", name: "prod-eu", labels: { [OPT_IN]: OPT_IN_VALUE }, phase: "Provisioning" });
  const name = "mgmt-capi-prod-eu";
  const provisioning = await until("the Provisioning record", async () => {
    const c = (await server.api("GET", `/api/v1/clusters?q=${name}`)).body.items?.[0];
    return c?.status === "Provisioning" && c;
  });

  mgmt.addCapiKubeconfigSecret("capi", "prod-eu", workload.kubeconfig(WORKLOAD_TOKEN));
  mgmt.updateCapiCluster("capi", "prod-eu", (c) => {
    c.phase = "Provisioned";
    for (const type of ["InfrastructureReady", "ControlPlaneInitialized", "ControlPlaneReady", "Ready"] as const)
      c.conditions[type] = { ...c.conditions[type], status: "True" };
  });
  await until("the manifest applied", async () => {
    const item = (await server.api("GET", "/api/v1/cluster-api/clusters")).body.items?.[0];
    return item?.step === "applied" && item;
  });
  assert.ok(workload.appliedObjects().every((o) => o.fieldManager === CAPI_FIELD_MANAGER));

  // The agent as the applied Deployment runs it: its token from the applied Secret, nobody else involved.
  pod = await startDeploymentPod(image, workload, saToken);
  const ready = await until(
    "the cluster Ready",
    async () => {
      const c = (await server.api("GET", `/api/v1/clusters/${provisioning.id}`)).body;
      return c?.status === "Ready" && c;
    },
    60_000,
    pod.output,
  );
  assert.equal(ready.name, name);
  assert.equal(ready.clusterUid, workload.kubeSystemUid);
  const origin = await until("joined", async () => {
    const item = (await server.api("GET", `/api/v1/clusters/${provisioning.id}/cluster-api`)).body.item;
    return item?.step === "joined" && item;
  });
  assert.equal(origin.error, null, "the agent reports the kube-system UID read before the apply");

  mgmt.setCapiClusterDeleting("capi", "prod-eu");
  await until("deregistering", async () => {
    const c = (await server.api("GET", `/api/v1/clusters/${provisioning.id}`)).body;
    return c?.phase === "Deregistration";
  });
  const wizard = (await server.api("GET", `/api/v1/clusters/${provisioning.id}/deregistration`)).body;
  assert.equal(wizard.step, "disconnecting");
  assert.match(wizard.forced[0].reason, /deleted by Cluster API: drain skipped/);

  mgmt.removeCapiCluster("capi", "prod-eu");
  await until(
    "removed from the fleet",
    async () => (await server.api("GET", `/api/v1/clusters/${provisioning.id}`)).status === 404,
  );
  const audit = (await server.api("GET", "/api/v1/audit?action=cluster.deregister&actor=cluster-api:mgmt")).body;
  assert.equal(audit.items?.length, 1, "the audit log names Cluster API as who removed it");
});
