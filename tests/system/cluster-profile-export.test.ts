// The ClusterProfile exporter against the loopback Kubernetes API test server
// acting as the hub (tests/helpers/fake-kube-api.ts): every request and body asserted. First
// export applies every profile and then its status (server-side apply, our field manager, force),
// bounded per run; an unchanged fleet sends nothing; a change within 30 s waits its turn; an agent
// reporting its API server down flips ControlPlaneHealthy; a removed cluster's profile is deleted;
// a profile deleted on the hub is applied again at the next listing; hub errors (401, 403, missing CRD)
// show as the last error and in the metrics without crashing; the kubeconfig is sealed at rest.
// A kubeconfig is a credential, not a program: one stored before its fields were checked is refused
// at the run without running anything; the hub's address is checked as a webhook's (the test hub is
// on loopback, so private targets are allowed first); a hub's answer body is never kept or logged.
// Real database of TEST_ENGINE, services called in-process with the run's clock passed in.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, after, describe, test } from "node:test";
import { CLUSTER_MANAGER_LABEL, clusterProfile } from "@/lib/domain/cluster-profiles";
import { ApiError } from "@/lib/server/api/errors";
import { exportClusterProfiles } from "@/lib/server/cluster-profiles/export-cluster-profiles";
import { getExporterState, updateExporter } from "@/lib/server/cluster-profiles/exporter-settings";
import { listClusterProfiles } from "@/lib/server/cluster-profiles/list-cluster-profiles";
import { loadProfileFacts } from "@/lib/server/cluster-profiles/profile-facts";
import { db } from "@/lib/server/db/client";
import { renderOwnMetrics } from "@/lib/server/metrics/registry";
import { kekId, sealKey, unsealKey, type SealedKey } from "@/lib/server/pki/ca-key-seal";
import { updateSettings } from "@/lib/server/settings/settings";
import { appDatabase } from "../helpers/app-database";
import { captureStderr } from "../helpers/capture-stderr";
import { FakeKubeApi, type RecordedRequest } from "../helpers/fake-kube-api";
import { TEST_KEK } from "../helpers/fleet-server";
import { eksCluster } from "../helpers/kube-clusters";

process.env.FLEET_CA_KEK = TEST_KEK;
process.env.FLEET_CA_KEK_FILE = "";
const database = appDatabase();

const ACTOR = { type: "user" as const, id: "u_admin", label: "admin@example.com" };
const HUB_TOKEN = "hub-token-7f3a9c1e5b2d";
const NS = "fleet";
const BASE = `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${NS}/clusterprofiles`;
const t0 = new Date(Date.now() + 60_000);
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

let hub: FakeKubeApi;
let seen = 0;
/** The hub's ClusterProfile requests since the last call. */
function newRequests(): RecordedRequest[] {
  const all = hub.clusterProfileRequests();
  const fresh = all.slice(seen);
  seen = all.length;
  return fresh;
}
const summary = (rs: RecordedRequest[]) => rs.map((r) => `${r.method} ${r.path.replace(BASE, "")}`);

async function seedCluster(name: string, over: Record<string, unknown> = {}, labels: Record<string, string> = {}) {
  await db().cluster.create({
    data: {
      id: `c_${name}`,
      name,
      phase: "Active",
      registeredAt: new Date(t0.getTime() - 86_400_000),
      lastHeartbeatAt: new Date(t0.getTime() - 5_000),
      apiServerHealth: "ok",
      kubernetesVersion: "v1.31.2",
      agentVersion: "1.4.0",
      apiServerUrl: `https://${name}.example.com:6443`,
      caFingerprint: "ab".repeat(32),
      ...over,
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
    },
  });
}

const onHub = (name: string) => hub.clusterProfiles.get(`${NS}/${name}`);
const condition = (name: string, type: string) =>
  (onHub(name)?.status as { conditions: { type: string; status: string; reason: string }[] }).conditions.find(
    (c) => c.type === type,
  );

describe("ClusterProfile export to a hub", () => {
  before(async () => {
    hub = await new FakeKubeApi(eksCluster(), { tokens: [HUB_TOKEN] }).start();
    // Runs below move the clock minutes ahead; heartbeats stay fresh within the hour.
    await updateSettings(ACTOR, { notReadyThresholdSeconds: 3_600 });
    await seedCluster("alpha", {}, { env: "prod", region: "eu-west-1" });
    await seedCluster("bravo", {}, { env: "dev" });
    await seedCluster("charlie", {
      phase: "Registration",
      lastHeartbeatAt: null,
      apiServerHealth: null,
      kubernetesVersion: null,
    });
  });
  after(async () => {
    await hub?.stop();
  });

  test("settings: a kubeconfig is checked and stored sealed with the KEK under its own purpose, never returned or audited in clear", async () => {
    await assert.rejects(
      updateExporter(ACTOR, { enabled: true }),
      (e) => e instanceof ApiError && e.code === "invalid_request" && /before turning the export on/.test(e.message),
    );
    await assert.rejects(
      updateExporter(ACTOR, { kubeconfig: hub.kubeconfig(HUB_TOKEN).replace(hub.url, "http://127.0.0.1:1") }),
      (e) => e instanceof ApiError && e.code === "invalid_request" && /not https/.test(e.message),
    );
    assert.equal(await exportClusterProfiles({ now: at(0) }), null, "off: nothing runs");

    // The hub is checked as a webhook target is: this one is on loopback.
    const kubeconfig = hub.kubeconfig(HUB_TOKEN);
    await assert.rejects(
      updateExporter(ACTOR, { enabled: true, namespace: NS, kubeconfig }),
      (e) =>
        e instanceof ApiError &&
        e.code === "target_not_allowed" &&
        /127\.0\.0\.1 resolves to 127\.0\.0\.1, loopback.*\(Settings: hubAllowPrivateTargets\)/.test(e.message),
    );
    await updateSettings(ACTOR, { hubAllowPrivateTargets: true });
    const state = await updateExporter(ACTOR, { enabled: true, namespace: NS, kubeconfig });
    assert.deepEqual(state.kubeconfig, { set: true, server: hub.url });
    assert.equal(state.enabled, true);
    assert.equal(state.namespace, NS);
    assert.ok(!JSON.stringify(state).includes(HUB_TOKEN));

    const param = database.current.engine === "sqlite" ? "?" : "$1";
    const [row] = await database.current.query<{ sealedKubeconfig: string }>(
      `SELECT "sealedKubeconfig" FROM "ClusterProfileExporter" WHERE id = ${param}`,
      ["hub"],
    );
    assert.ok(row);
    assert.ok(!row.sealedKubeconfig.includes(HUB_TOKEN), "no token in clear");
    assert.ok(!row.sealedKubeconfig.includes("certificate-authority-data"), "no kubeconfig in clear");
    const sealed = JSON.parse(row.sealedKubeconfig) as SealedKey;
    const kek = Buffer.from(TEST_KEK, "base64");
    assert.equal(sealed.kid, kekId(kek));
    assert.equal(unsealKey(sealed, kek, Buffer.from("fleet-registry/hub-kubeconfig/v1")), kubeconfig);
    assert.throws(() => unsealKey(sealed, kek), "bound to its purpose: it does not open as the CA key");

    const audits = await db().auditLog.findMany({ where: { action: "clusterProfileExport.update" } });
    assert.equal(audits.length, 1);
    assert.ok(!audits[0]!.details.includes(HUB_TOKEN));
    assert.deepEqual(JSON.parse(audits[0]!.details), {
      kubeconfig: { action: "set", server: hub.url },
      enabled: { from: false, to: true },
      namespace: { from: "fleet-registry", to: NS },
    });
  });

  test("the first export lists the hub, then applies each profile and its status, a bounded number per run", async () => {
    const first = await exportClusterProfiles({ now: at(0), maxWrites: 2 });
    assert.deepEqual(first, { applied: ["alpha", "bravo"], deleted: [], waiting: [], error: null });
    const requests = newRequests();
    assert.deepEqual(summary(requests), ["GET ", "PATCH /alpha", "PATCH /alpha/status", "PATCH /bravo", "PATCH /bravo/status"]);
    assert.deepEqual(requests[0]!.query, { labelSelector: `${CLUSTER_MANAGER_LABEL}=fleet-registry`, limit: "500" });
    for (const r of requests.slice(1)) {
      assert.equal(r.contentType, "application/apply-patch+yaml");
      assert.deepEqual(r.query, { fieldManager: "fleet-registry", force: "true" });
    }
    // The object without its status, in the hub's namespace...
    assert.deepEqual(requests[1]!.body, {
      apiVersion: "multicluster.x-k8s.io/v1alpha1",
      kind: "ClusterProfile",
      metadata: {
        name: "alpha",
        namespace: NS,
        labels: { env: "prod", region: "eu-west-1", [CLUSTER_MANAGER_LABEL]: "fleet-registry" },
        annotations: { "fleet-registry.io/cluster-id": "c_alpha" },
      },
      spec: { displayName: "alpha", clusterManager: { name: "fleet-registry" } },
    });
    // ...then the status alone, the conditions observing the generation the hub answered.
    const statusBody = requests[2]!.body as { metadata: unknown; status: { conditions: Record<string, unknown>[] } } & Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(statusBody).sort(), ["apiVersion", "kind", "metadata", "status"]);
    assert.deepEqual(statusBody.metadata, { name: "alpha", namespace: NS });
    assert.deepEqual(
      statusBody.status.conditions.map((c) => [c.type, c.status, c.reason, c.observedGeneration]),
      [
        ["ControlPlaneHealthy", "True", "AgentReportsHealthy", 1],
        ["Joined", "True", "Registered", 1],
      ],
    );
    const text = JSON.stringify(requests.map((r) => r.body));
    assert.ok(!text.includes("ab".repeat(32)), "no CA fingerprint");
    assert.doesNotMatch(text, /BEGIN|token/i);

    // The next run takes the rest; the hub then holds what the admin API lists.
    assert.deepEqual((await exportClusterProfiles({ now: at(1) }))?.applied, ["charlie"]);
    assert.deepEqual(summary(newRequests()), ["PATCH /charlie", "PATCH /charlie/status"]);
    assert.equal(condition("charlie", "ControlPlaneHealthy")?.status, "Unknown");
    const listed = await listClusterProfiles({ limit: 500 });
    assert.deepEqual(
      listed.items.map((p) => p.metadata.name),
      [...hub.clusterProfiles.values()].map((o) => o.metadata.name),
    );
    for (const p of listed.items) {
      const stored = onHub(p.metadata.name)!;
      assert.deepEqual(stored.spec, p.spec);
      assert.deepEqual(stored.metadata.labels, p.metadata.labels);
      assert.equal(stored.metadata.namespace, p.metadata.namespace);
    }
    const state = await getExporterState();
    assert.equal(state.exported, 3);
    assert.equal(state.lastExportAt, at(1).toISOString());
    assert.equal(state.lastError, null);
  });

  test("an unchanged fleet sends the hub nothing", async () => {
    assert.deepEqual(await exportClusterProfiles({ now: at(5) }), { applied: [], deleted: [], waiting: [], error: null });
    // A heartbeat is no change: profiles carry no heartbeat times.
    await db().cluster.update({ where: { name: "alpha" }, data: { lastHeartbeatAt: at(6) } });
    assert.deepEqual((await exportClusterProfiles({ now: at(7) }))?.applied, []);
    assert.deepEqual(newRequests(), []);
  });

  test("a change within 30 s of the last apply waits, then goes out", async () => {
    await db().clusterLabel.update({
      where: { clusterId_key: { clusterId: "c_bravo", key: "env" } },
      data: { value: "staging" },
    });
    const early = await exportClusterProfiles({ now: at(20) });
    assert.deepEqual(early?.waiting, ["bravo"]);
    assert.deepEqual(newRequests(), []);
    const due = await exportClusterProfiles({ now: at(31) });
    assert.deepEqual(due?.applied, ["bravo"]);
    const requests = newRequests();
    // The label is in the object's labels and in the status's properties: both change.
    assert.deepEqual(summary(requests), ["PATCH /bravo", "PATCH /bravo/status"]);
    assert.equal((requests[0]!.body as { metadata: { labels: Record<string, string> } }).metadata.labels.env, "staging");
    const properties = (requests[1]!.body as { status: { properties: { name: string; value: string }[] } }).status.properties;
    assert.deepEqual(
      properties.find((x) => x.name === "env"),
      { name: "env", value: "staging" },
    );
    assert.equal(onHub("bravo")?.metadata.labels?.env, "staging");
  });

  test("an agent reporting its API server down flips ControlPlaneHealthy to False: the status alone is applied", async () => {
    await db().cluster.update({ where: { name: "alpha" }, data: { apiServerHealth: "down", statusChangedAt: at(40) } });
    assert.deepEqual((await exportClusterProfiles({ now: at(45) }))?.applied, ["alpha"]);
    const requests = newRequests();
    assert.deepEqual(summary(requests), ["PATCH /alpha/status"]);
    const cp = (requests[0]!.body as { status: { conditions: Record<string, unknown>[] } }).status.conditions[0]!;
    assert.deepEqual(cp, {
      type: "ControlPlaneHealthy",
      status: "False",
      reason: "APIServerDown",
      message: "The agent reports the API server down.",
      lastTransitionTime: at(40).toISOString(),
      observedGeneration: 1,
    });
    assert.equal(condition("alpha", "ControlPlaneHealthy")?.status, "False");
    // Silent for longer than the threshold: Unknown, not False.
    await db().cluster.update({ where: { name: "alpha" }, data: { lastHeartbeatAt: new Date(at(100).getTime() - 3_601_000) } });
    await exportClusterProfiles({ now: at(100) });
    assert.deepEqual(summary(newRequests()), ["PATCH /alpha/status"]);
    assert.deepEqual(
      [condition("alpha", "ControlPlaneHealthy")?.status, condition("alpha", "ControlPlaneHealthy")?.reason],
      ["Unknown", "HeartbeatStale"],
    );
  });

  test("a removed cluster's profile is deleted on the hub", async () => {
    await db().cluster.delete({ where: { name: "charlie" } });
    const run = await exportClusterProfiles({ now: at(110) });
    assert.deepEqual(run?.deleted, ["charlie"]);
    assert.deepEqual(summary(newRequests()), ["DELETE /charlie"]);
    assert.equal(onHub("charlie"), undefined);
    assert.equal(await db().clusterProfileExport.count({ where: { name: "charlie" } }), 0);
    assert.deepEqual((await exportClusterProfiles({ now: at(115) }))?.deleted, []);
    assert.deepEqual(newRequests(), []);
  });

  test("hub errors (401, 403, a missing CRD) end the run, show as the last error and in the metrics, and clear once it works", async () => {
    hub.tokens.clear();
    await db().clusterLabel.update({ where: { clusterId_key: { clusterId: "c_bravo", key: "env" } }, data: { value: "prod" } });
    const unauthorized = await exportClusterProfiles({ now: at(200) });
    assert.match(unauthorized?.error ?? "", /HTTP 401 \(the hub refused the kubeconfig's credentials/);
    assert.deepEqual(unauthorized?.applied, []);
    let state = await getExporterState();
    assert.match(state.lastError?.message ?? "", /HTTP 401/);
    assert.equal(state.lastError?.at, at(200).toISOString());
    assert.ok(
      (await renderOwnMetrics()).some((l) => /^fleet_cluster_profile_export_errors_total\{reason="unauthorized"\} 1$/.test(l)),
    );

    hub.tokens.add(HUB_TOKEN);
    hub.clusterProfilesForbidden = true;
    const forbidden = await exportClusterProfiles({ now: at(220) });
    assert.match(forbidden?.error ?? "", /HTTP 403 \(the kubeconfig's user may not write clusterprofiles/);
    assert.ok(
      (await renderOwnMetrics()).some((l) => /^fleet_cluster_profile_export_errors_total\{reason="forbidden"\} 1$/.test(l)),
    );
    hub.clusterProfilesForbidden = false;

    hub.clusterProfileCrd = false;
    const missingCrd = await exportClusterProfiles({ now: at(240) });
    assert.match(missingCrd?.error ?? "", /HTTP 404.*CRD/);
    assert.match((await getExporterState()).lastError?.message ?? "", /clusterprofiles\.multicluster\.x-k8s\.io/);
    assert.ok(
      (await renderOwnMetrics()).some((l) => /^fleet_cluster_profile_export_errors_total\{reason="not_found"\} 1$/.test(l)),
    );
    newRequests();

    hub.clusterProfileCrd = true;
    // The 401 took bravo's slot at 200 s (the missing CRD stopped the run at the listing, before
    // any apply), so at 250 s bravo is due; a failed run lists the hub again at once.
    assert.deepEqual((await exportClusterProfiles({ now: at(250) }))?.applied, ["bravo"]);
    assert.deepEqual(summary(newRequests()), ["GET ", "PATCH /bravo", "PATCH /bravo/status"]);
    assert.equal(onHub("bravo")?.metadata.labels?.env, "prod");
    state = await getExporterState();
    assert.equal(state.lastError, null);
    assert.equal(state.lastExportAt, at(250).toISOString());
  });

  test("a profile deleted on the hub is applied again when the hub is next listed (every 10 minutes)", async () => {
    hub.clusterProfiles.delete(`${NS}/alpha`);
    await exportClusterProfiles({ now: at(300) });
    assert.deepEqual(newRequests(), [], "between listings nothing is read or written");
    const run = await exportClusterProfiles({ now: at(250 + 600) });
    assert.deepEqual(run?.applied, ["alpha"]);
    assert.deepEqual(summary(newRequests()), ["GET ", "PATCH /alpha", "PATCH /alpha/status"]);
    const [facts] = await loadProfileFacts({ take: 1 });
    const listed = clusterProfile(facts!, { now: at(850), notReadyThresholdSeconds: 3_600, namespace: NS });
    assert.deepEqual(onHub("alpha")?.spec, listed.spec);
    const conditions = (onHub("alpha")?.status as { conditions: Record<string, unknown>[] }).conditions;
    assert.deepEqual(
      conditions.map(({ observedGeneration: _g, ...c }) => c),
      listed.status.conditions,
    );
    assert.ok(
      conditions.every((c) => c.observedGeneration === 1),
      "a new object's generation is 1 again",
    );
  });

  test("the list pages by name: limit and cursor (or continue) as metadata.continue", async () => {
    const first = await listClusterProfiles({ limit: 1 });
    assert.deepEqual(first.metadata, { continue: "alpha" });
    const second = await listClusterProfiles({ limit: 1, cursor: first.metadata.continue });
    assert.deepEqual([second.items.map((p) => p.metadata.name), second.metadata], [["bravo"], {}]);
  });

  // Last: it leaves the scan's position mid-fleet until its final run wraps around.
  test("each run compares one slice of the fleet by name; the next run takes the next slice", async () => {
    for (const id of ["c_alpha", "c_bravo"]) {
      await db().clusterLabel.update({ where: { clusterId_key: { clusterId: id, key: "env" } }, data: { value: "canary" } });
    }
    const slices = [];
    for (const [i, seconds] of [900, 905, 910].entries()) {
      const run = await exportClusterProfiles({ now: at(seconds), scanPerRun: 1 });
      slices.push([i, run?.applied]);
    }
    assert.deepEqual(slices, [
      [0, ["alpha"]],
      [1, ["bravo"]],
      [2, []],
    ]);
    assert.deepEqual(summary(newRequests()), ["PATCH /alpha", "PATCH /alpha/status", "PATCH /bravo", "PATCH /bravo/status"]);
    assert.equal(onHub("bravo")?.metadata.labels?.env, "canary");
  });

  test("a kubeconfig stored before its fields were checked is refused at the run, and its exec never runs", async () => {
    const marker = path.join(os.tmpdir(), `fleet-hub-exec-${process.pid}`);
    fs.rmSync(marker, { force: true });
    const execConfig = hub
      .kubeconfig(HUB_TOKEN)
      .replace(
        `    token: ${HUB_TOKEN}`,
        `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: touch\n      args: [${marker}]`,
      );
    const { sealedKubeconfig } = await db().clusterProfileExporter.findUniqueOrThrow({ where: { id: "hub" } });
    const kek = Buffer.from(TEST_KEK, "base64");
    const aad = Buffer.from("fleet-registry/hub-kubeconfig/v1");
    await db().clusterProfileExporter.update({
      where: { id: "hub" },
      data: { sealedKubeconfig: JSON.stringify(sealKey(execConfig, kek, aad)) },
    });
    try {
      const run = await exportClusterProfiles({ now: at(1_900) });
      assert.match(
        run?.error ?? "",
        /^The stored hub kubeconfig is refused: it may not set users\[0\]\.user\.exec \(runs a program/,
      );
      assert.match((await getExporterState()).lastError?.message ?? "", /users\[0\]\.user\.exec/);
      assert.ok(
        (await renderOwnMetrics()).some((l) => /^fleet_cluster_profile_export_errors_total\{reason="kubeconfig"\} 1$/.test(l)),
      );
      assert.ok(!fs.existsSync(marker), "the kubeconfig's command did not run");
      assert.deepEqual(newRequests(), [], "the hub was not called");
    } finally {
      await db().clusterProfileExporter.update({ where: { id: "hub" }, data: { sealedKubeconfig } });
    }
  });

  test("a hub's answer body is never kept, shown or logged: its status and a fixed sentence are", async () => {
    const secret = "hub-body-secret-9d2f71c4";
    hub.clusterProfileFailure = { code: 500, message: `etcd: Authorization: Bearer ${secret}` };
    // The listing is due again (ten minutes after the last): it meets the failure.
    const { result: run, output: logged } = await captureStderr(() => exportClusterProfiles({ now: at(2_000) }));
    hub.clusterProfileFailure = null;
    assert.equal(run?.error, "The hub answered the list of ClusterProfiles with HTTP 500");
    assert.equal((await getExporterState()).lastError?.message, "The hub answered the list of ClusterProfiles with HTTP 500");
    assert.match(
      logged,
      /ClusterProfile export stopped by the hub reason=http_500 error="The hub answered the list of ClusterProfiles with HTTP 500"/,
    );
    assert.ok(!logged.includes(secret) && !logged.includes("etcd"), logged);
    const [row] = await database.current.query<{ lastError: string }>(`SELECT "lastError" FROM "ClusterProfileExporter"`);
    assert.ok(row && !row.lastError.includes(secret));
    newRequests();
  });

  test("with private targets no longer allowed, the loopback hub is refused at the run before any request", async () => {
    await updateSettings(ACTOR, { hubAllowPrivateTargets: false });
    try {
      const run = await exportClusterProfiles({ now: at(2_100) });
      assert.match(run?.error ?? "", /127\.0\.0\.1 resolves to 127\.0\.0\.1, loopback.*hubAllowPrivateTargets/);
      assert.ok(
        (await renderOwnMetrics()).some((l) =>
          /^fleet_cluster_profile_export_errors_total\{reason="target_not_allowed"\} 1$/.test(l),
        ),
      );
      assert.deepEqual(newRequests(), []);
    } finally {
      await updateSettings(ACTOR, { hubAllowPrivateTargets: true });
    }
  });
});
