// Cluster API auto-import, in-process on the engine TEST_ENGINE picks, against two loopback
// Kubernetes API servers (tests/helpers/fake-kube-api.ts): a management cluster serving CAPI
// Clusters (list, watch with bookmarks and 410, Secrets, Namespaces) and a workload cluster
// receiving the agent's manifest by server-side apply. The job's run (runClusterApi) is called as
// the scheduler would; a restart is stopClusterApi then runs again, with only the database kept.
// Covered: provisioning seen at once, the join by itself, each failure of the join with its words
// and its retry, deletion (drain skipped, certificates revoked, record removed when gone), removal
// from the registry never re-imported until the mark is cleared, two sources with one cluster name,
// a broken and an expired watch, deletions while stopped, one watcher per source, and a join
// interrupted after its token was minted reusing that token.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { AGENT_OBJECT_NAMES } from "@/lib/domain/agent-kube-calls";
import { CAPI_FIELD_MANAGER, DELETED_BY_CAPI, DO_NOT_IMPORT_ANNOTATION, OPT_IN_VALUE } from "@/lib/domain/cluster-api";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import { clearCapiMark, listCapiClusters, retryCapiCluster } from "@/lib/server/cluster-api/capi-clusters";
import { runClusterApi, stopClusterApi, watchesSource } from "@/lib/server/cluster-api/controller";
import { createSource, deleteSource, listSources } from "@/lib/server/cluster-api/sources";
import { db } from "@/lib/server/db/client";
import { actOnDeregistration } from "@/lib/server/lifecycle/deregistration";
import { registerCluster } from "@/lib/server/registration/register-cluster";
import { updateSettings } from "@/lib/server/settings/settings";
import { registrationBody } from "../helpers/agent-client";
import { appDatabase } from "../helpers/app-database";
import { csrForKey, makeKey } from "../helpers/csr";
import { FakeKubeApi } from "../helpers/fake-kube-api";
import { TEST_KEK } from "../helpers/fleet-server";
import { eksCluster } from "../helpers/kube-clusters";

process.env.FLEET_CA_KEK = TEST_KEK;
process.env.FLEET_CA_KEK_FILE = "";
appDatabase();

const ADMIN = { type: "user" as const, id: "u_admin", label: "admin@example.com" };
const OPT_IN = "fleet-registry/auto-register";
const MGMT_TOKEN = "mgmt-admin-token-3f9a";
const WORKLOAD_TOKEN = "workload-admin-token-8c1e";
const NS = "team-a";

let mgmt: FakeKubeApi;
let mgmt2: FakeKubeApi;
let workload: FakeKubeApi;

/** Runs the job until `check` holds (as the scheduler would, every 2 s; here every 50 ms), at most ~10 s. */
async function until<T>(what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    await runClusterApi();
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  const rows = await db().capiCluster.findMany({ select: { namespace: true, name: true, step: true, stepError: true } });
  const sources = await db().capiSource.findMany({ select: { name: true, lastError: true } });
  throw new Error(`timed out waiting for ${what}; sources ${JSON.stringify(sources)}; rows ${JSON.stringify(rows)}`);
}

const row = (name: string, namespace = NS) =>
  db().capiCluster.findFirst({ where: { name, namespace }, orderBy: { seenAt: "desc" } });
const fleetCluster = (name: string) => db().cluster.findUnique({ where: { name }, include: { labels: true } });

function capiCluster(
  name: string,
  extra: { labels?: Record<string, string>; initialised?: boolean; namespace?: string } = {},
  on = mgmt,
) {
  return on.addCapiCluster({
    namespace: extra.namespace ?? NS,
    name,
    labels: { [OPT_IN]: OPT_IN_VALUE, env: "prod", ...extra.labels },
    phase: extra.initialised ? "Provisioned" : "Provisioning",
    infrastructureKind: "AWSCluster",
    kubernetesVersion: "v1.30.2",
    topologyClass: "eks-default",
  });
}

function initialise(name: string, namespace = NS) {
  mgmt.updateCapiCluster(namespace, name, (c) => {
    c.phase = "Provisioned";
    for (const type of ["InfrastructureReady", "ControlPlaneInitialized", "ControlPlaneReady", "Ready"] as const)
      c.conditions[type] = { ...c.conditions[type], status: "True" };
  });
}

/** The token the applied manifest carries, and the agent's registration with it (in-process). */
async function registerAgent(fleetName: string) {
  const token = workload.secretText(AGENT_OBJECT_NAMES.tokenSecret, "token", AGENT_OBJECT_NAMES.namespace);
  assert.ok(token, "the manifest's token Secret was applied");
  const key = makeKey();
  const { body } = registrationBody(fleetName, { csr: csrForKey(key.privateKeyPem), clusterUid: workload.kubeSystemUid });
  const result = await registerCluster(token, body, { sourceAddress: "127.0.0.1" });
  assert.equal(result.kind, "registered", JSON.stringify(result));
  return result;
}

async function removeFromRegistry(clusterId: string) {
  await actOnDeregistration(ADMIN, clusterId, { action: "start" });
  await actOnDeregistration(ADMIN, clusterId, { action: "confirm-workloads", force: true, reason: "retiring it" });
  await actOnDeregistration(ADMIN, clusterId, { action: "disconnect" });
  await db().directive.updateMany({ where: { clusterId, type: "disconnect" }, data: { ackedAt: new Date() } });
  await actOnDeregistration(ADMIN, clusterId, { action: "remove", reason: "retiring it" });
}

describe("Cluster API import", () => {
  before(async () => {
    await updateSettings(SYSTEM_ACTOR, { requiredLabels: ["env"] });
    mgmt = await new FakeKubeApi(eksCluster(), { tokens: [], adminTokens: [MGMT_TOKEN] }).start();
    mgmt2 = await new FakeKubeApi(eksCluster(), { tokens: [], adminTokens: [MGMT_TOKEN], capiVersions: ["v1beta1"] }).start();
    workload = await new FakeKubeApi(eksCluster(), { tokens: [], adminTokens: [WORKLOAD_TOKEN] }).start();
    mgmt.addNamespace(NS);
    mgmt2.addNamespace(NS);
    await createSource(ADMIN, {
      name: "mgmt",
      kubeconfig: mgmt.kubeconfig(MGMT_TOKEN),
      namespaces: [],
      optInLabel: OPT_IN,
      labelMappings: [
        { from: "team", to: "team" },
        { from: "env", to: "env" },
      ],
      fixedLabels: { region: "eu-west-1" },
      requireApproval: false,
      agentOptions: {},
      allowPrivateTargets: true,
      enabled: true,
    });
  });

  after(async () => {
    await stopClusterApi();
    await Promise.all([mgmt.stop(), mgmt2.stop(), workload.stop()]);
  });

  beforeEach(() => {
    workload.applyForbidden.clear();
  });

  describe("a source", () => {
    test("its kubeconfig is sealed and never returned; a private address needs the source's allowance", async () => {
      const stored = await db().capiSource.findUniqueOrThrow({ where: { name: "mgmt" } });
      assert.ok(!stored.sealedKubeconfig.includes(MGMT_TOKEN));
      assert.ok(!JSON.stringify(await listSources()).includes(MGMT_TOKEN));
      await assert.rejects(
        createSource(ADMIN, {
          name: "private",
          kubeconfig: mgmt.kubeconfig(MGMT_TOKEN),
          namespaces: [],
          optInLabel: OPT_IN,
          labelMappings: [],
          fixedLabels: {},
          requireApproval: false,
          agentOptions: {},
          allowPrivateTargets: false,
          enabled: true,
        }),
        (err: { code?: string; message: string }) => err.code === "target_not_allowed" && /allowPrivateTargets/.test(err.message),
      );
      const exec = mgmt.kubeconfig(MGMT_TOKEN).replace("    token:", "    exec: { command: /bin/sh }\n    token:");
      await assert.rejects(
        createSource(ADMIN, { ...(await sourceInput("exec")), kubeconfig: exec }),
        (err: { code?: string }) => err.code === "invalid_request",
      );
    });

    test("the version served is discovered (v1beta2 preferred) and one instance holds the watch", async () => {
      const source = await until("the source watched", async () => {
        const s = await db().capiSource.findUniqueOrThrow({ where: { name: "mgmt" } });
        return s.servedVersion && s.lastSyncAt ? s : null;
      });
      assert.equal(source.servedVersion, "v1beta2");
      assert.ok(watchesSource(source.id));
      await until("the watch open", async () => mgmt.capiWatches >= 1);
    });
  });

  async function sourceInput(name: string) {
    return {
      name,
      kubeconfig: mgmt2.kubeconfig(MGMT_TOKEN),
      namespaces: [],
      optInLabel: OPT_IN,
      labelMappings: [{ from: "env", to: "env" }],
      fixedLabels: { region: "us-east-1" },
      requireApproval: false,
      agentOptions: {},
      allowPrivateTargets: true,
      enabled: true,
    };
  }

  describe("joining by itself", () => {
    test("provisioning is seen at once, the join waits for the control plane, then the agent is applied and registers", async () => {
      capiCluster("prod", { labels: { team: "payments" } });
      const pre = await until("the pre-created record", () => fleetCluster("mgmt-team-a-prod"));
      assert.equal(pre.phase, "Provisioning");
      assert.deepEqual(
        Object.fromEntries(pre.labels.map((l) => [l.key, l.value])),
        { env: "prod", region: "eu-west-1", team: "payments" },
        "fixed labels, mapped labels and the required set",
      );
      const seen = (await row("prod"))!;
      assert.equal(seen.step, "provisioning");
      assert.equal(seen.infrastructureProvider, "AWSCluster");
      assert.equal(seen.topologyClass, "eks-default");
      assert.deepEqual(
        (await listCapiClusters({})).items.find((c) => c.name === "prod")!.waitingFor,
        "Control plane not initialised yet.",
      );
      assert.equal(workload.appliedObjects().length, 0, "nothing is applied before the control plane is initialised");
      const audit = await db().auditLog.findFirstOrThrow({ where: { action: "cluster.provision", targetId: pre.id } });
      assert.equal(audit.actorLabel, "cluster-api:mgmt");

      // The kubeconfig Secret does not exist yet: the step says so and backs off.
      initialise("prod");
      const missing = await until("the missing Secret", async () => ((await row("prod"))?.stepError ? row("prod") : null));
      assert.equal(missing!.step, "joining");
      assert.equal(missing!.stepError, "kubeconfig Secret team-a/prod-kubeconfig not found");
      assert.ok(missing!.nextAttemptAt! > new Date(Date.now() + 5_000), "retried after a back-off, not at once");

      // The apply is refused by RBAC: the words name the status and the resource; the token is minted once.
      mgmt.addCapiKubeconfigSecret(NS, "prod", workload.kubeconfig(WORKLOAD_TOKEN));
      workload.applyForbidden.add("namespaces");
      await retryCapiCluster(ADMIN, missing!.id);
      const refused = await until("the refused apply", async () => {
        const r = await row("prod");
        return r?.stepError?.startsWith("apply refused") ? r : null;
      });
      assert.match(refused.stepError!, /^apply refused: 403 on namespaces/);
      assert.ok(refused.tokenId);

      // Allowed again, retried: the same token is applied (a join interrupted after minting mints nothing new).
      workload.applyForbidden.clear();
      await retryCapiCluster(ADMIN, refused.id);
      const applied = await until("the applied manifest", async () =>
        (await row("prod"))?.step === "applied" ? row("prod") : null,
      );
      assert.equal(applied!.tokenId, refused.tokenId);
      assert.equal(await db().registrationToken.count({ where: { clusterId: pre.id } }), 1);
      assert.equal(applied!.expectedClusterUid, workload.kubeSystemUid);
      const objects = workload.appliedObjects();
      assert.ok(objects.every((o) => o.fieldManager === CAPI_FIELD_MANAGER && o.force));
      assert.deepEqual([...new Set(objects.map((o) => o.object.kind))].sort(), [
        "ClusterRole",
        "ClusterRoleBinding",
        "Deployment",
        "Namespace",
        "Role",
        "RoleBinding",
        "Secret",
        "ServiceAccount",
      ]);

      // The agent registers with the applied token: joined, and the kept secret is dropped.
      await registerAgent("mgmt-team-a-prod");
      const joined = await until("joined", async () => ((await row("prod"))?.step === "joined" ? row("prod") : null));
      assert.equal(joined!.sealedToken, null);
      assert.equal(joined!.stepError, null);
      const applies = workload.appliedObjects().length;
      for (let i = 0; i < 5; i++) await runClusterApi();
      assert.equal(workload.appliedObjects().length, applies, "nothing is applied twice");
    });

    test("an agent that never registers is flagged after 5 minutes", async () => {
      capiCluster("silent", { initialised: true });
      mgmt.addCapiKubeconfigSecret(NS, "silent", workload.kubeconfig(WORKLOAD_TOKEN));
      const applied = await until("applied", async () => ((await row("silent"))?.step === "applied" ? row("silent") : null));
      await db().capiCluster.update({
        where: { id: applied!.id },
        data: { appliedAt: new Date(Date.now() - 6 * 60_000), nextAttemptAt: new Date() },
      });
      const flagged = await until("flagged", async () => ((await row("silent"))?.stepError ? row("silent") : null));
      assert.match(flagged!.stepError!, /^agent not heartbeating after 5 min/);
    });

    test("labels that would break the required set are refused before anything is created, with the reason", async () => {
      capiCluster("no-env", { labels: { env: "" } });
      mgmt.updateCapiCluster(NS, "no-env", (c) => {
        delete c.metadata.labels.env;
      });
      const refused = await until("refused", async () =>
        (await row("no-env"))?.step === "labels-refused" ? row("no-env") : null,
      );
      assert.match(refused!.stepError!, /requires the label env/);
      assert.equal(await fleetCluster("mgmt-team-a-no-env"), null);
    });

    test("a Cluster without the opt-in is seen but not imported; labelling its namespace opts it in", async () => {
      mgmt.addNamespace("team-b");
      mgmt.addCapiCluster({ namespace: "team-b", name: "dev", labels: { env: "dev" }, phase: "Provisioning" });
      const seen = await until("seen", async () =>
        (await row("dev", "team-b"))?.step === "not-opted-in" ? row("dev", "team-b") : null,
      );
      assert.equal(seen!.clusterId, null);
      mgmt.setNamespaceLabels("team-b", { [OPT_IN]: OPT_IN_VALUE });
      // Namespaces are read again at a resync; the next list sees the label. The Cluster's event may
      // still be in hand when the watcher stops: stopped means nothing of it is written afterwards.
      await stopClusterApi();
      const savedAtStop = await db().capiSource.findMany({ select: { resourceVersion: true } });
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await db().capiSource.findMany({ select: { resourceVersion: true } }), savedAtStop);
      await db().capiSource.updateMany({ data: { resourceVersion: null } });
      await until("imported through its namespace", () => fleetCluster("mgmt-team-b-dev"));
    });
  });

  describe("leaving", () => {
    test("deleted by Cluster API: deregistered at once without a drain, certificates revoked, removed when gone", async () => {
      capiCluster("doomed", { initialised: true });
      mgmt.addCapiKubeconfigSecret(NS, "doomed", workload.kubeconfig(WORKLOAD_TOKEN));
      await until("applied", async () => ((await row("doomed"))?.step === "applied" ? true : null));
      await registerAgent("mgmt-team-a-doomed");
      const cluster = (await fleetCluster("mgmt-team-a-doomed"))!;

      mgmt.setCapiClusterDeleting(NS, "doomed");
      const deregistering = await until("deregistration", async () => {
        const c = await db().cluster.findUnique({ where: { id: cluster.id } });
        return c?.phase === "Deregistration" ? c : null;
      });
      assert.ok(deregistering);
      const wizard = await db().deregistration.findUniqueOrThrow({ where: { clusterId: cluster.id } });
      assert.equal(wizard.step, "disconnecting");
      assert.equal(wizard.reason, DELETED_BY_CAPI);
      assert.match(JSON.parse(wizard.forced)[0].reason, /drain skipped/);
      assert.ok((await db().revokedCertificate.count({ where: { clusterId: cluster.id, reason: "deregistered" } })) > 0);
      const started = await db().auditLog.findFirstOrThrow({ where: { action: "deregistration.start", targetId: cluster.id } });
      assert.equal(started.actorLabel, "cluster-api:mgmt");

      mgmt.removeCapiCluster(NS, "doomed");
      await until("the record removed", async () => !(await db().cluster.findUnique({ where: { id: cluster.id } })));
      const tombstone = await db().clusterTombstone.findUniqueOrThrow({ where: { clusterId: cluster.id } });
      assert.equal(tombstone.reason, DELETED_BY_CAPI);
      assert.equal(await row("doomed"), null, "the row goes with the CAPI Cluster");
      assert.equal(mgmt.capiCluster(NS, "doomed"), undefined);
    });

    test("removed from the registry: the CAPI Cluster is only annotated, and not imported again until the mark is cleared", async () => {
      capiCluster("kept");
      const cluster = await until("pre-created", () => fleetCluster("mgmt-team-a-kept"));
      await removeFromRegistry(cluster.id);
      const marked = (await row("kept"))!;
      assert.ok(marked.excludedAt, "the mark is written by the removal itself");
      assert.equal(marked.excludedBy, ADMIN.label);
      await until("the annotation", async () => mgmt.capiCluster(NS, "kept")?.metadata.annotations[DO_NOT_IMPORT_ANNOTATION]);
      const capi = mgmt.capiCluster(NS, "kept")!;
      assert.equal(capi.metadata.deletionTimestamp, undefined, "the CAPI Cluster is never deleted");
      // Events keep coming (the annotation, a label): the cluster stays out.
      mgmt.updateCapiCluster(NS, "kept", (c) => {
        c.metadata.labels.touched = "yes";
      });
      for (let i = 0; i < 10; i++) await runClusterApi();
      assert.equal(await fleetCluster("mgmt-team-a-kept"), null);
      assert.equal((await row("kept"))!.step, "excluded");

      await clearCapiMark(ADMIN, marked.id);
      const back = await until("imported again", () => fleetCluster("mgmt-team-a-kept"));
      assert.notEqual(back.id, cluster.id);
      await until(
        "the annotation removed",
        async () => mgmt.capiCluster(NS, "kept")?.metadata.annotations[DO_NOT_IMPORT_ANNOTATION] === undefined,
      );
      const audit = await db().auditLog.findFirstOrThrow({ where: { action: "clusterApiCluster.clearMark" } });
      assert.equal(audit.actorLabel, ADMIN.label);
    });
  });

  describe("several management clusters, watches and restarts", () => {
    test("two sources with the same cluster name import two clusters, named by source (one serving v1beta1 only)", async () => {
      capiCluster("shared");
      capiCluster("shared", {}, mgmt2);
      const source2 = await createSource(ADMIN, await sourceInput("mgmt2"));
      await until(
        "both imported",
        async () => (await fleetCluster("mgmt-team-a-shared")) && (await fleetCluster("mgmt2-team-a-shared")),
      );
      assert.equal((await db().capiSource.findUniqueOrThrow({ where: { id: source2.id } })).servedVersion, "v1beta1");
      await deleteSource(ADMIN, source2.id);
      await runClusterApi();
      assert.ok(await fleetCluster("mgmt2-team-a-shared"), "removing a source keeps its clusters in the fleet");
    });

    test("a dropped watch resumes from its version; an expired one lists again, and sees deletions it missed", async () => {
      await until("watching", async () => mgmt.capiWatches > 0);
      mgmt.dropConnections();
      capiCluster("after-drop");
      await until("seen after the drop", () => fleetCluster("mgmt-team-a-after-drop"));

      capiCluster("missed");
      await until("seen", () => fleetCluster("mgmt-team-a-missed"));
      await stopClusterApi();
      const lists = () => mgmt.requests.filter((r) => r.path.endsWith("/clusters") && !r.query.watch).length;
      const listsBefore = lists();
      mgmt.removeCapiCluster(NS, "missed");
      capiCluster("while-away");
      // Compacted past the version the watch would resume from: 410, and a list brings back what it missed.
      mgmt.expireCapiWatches();
      await until(
        "listed again",
        async () => (await fleetCluster("mgmt-team-a-while-away")) && !(await fleetCluster("mgmt-team-a-missed")),
      );
      assert.ok(lists() > listsBefore, "listed again after the 410");
    });

    test("stopped between steps, the next start carries on, duplicating nothing", async () => {
      capiCluster("restart");
      await until("pre-created", () => fleetCluster("mgmt-team-a-restart"));
      await stopClusterApi();
      initialise("restart");
      mgmt.addCapiKubeconfigSecret(NS, "restart", workload.kubeconfig(WORKLOAD_TOKEN));
      await until("applied after the restart", async () => ((await row("restart"))?.step === "applied" ? true : null));
      await stopClusterApi();
      mgmt.setCapiClusterDeleting(NS, "restart");
      mgmt.removeCapiCluster(NS, "restart");
      await until("a deletion while stopped is seen", async () => !(await fleetCluster("mgmt-team-a-restart")));
      assert.equal(await db().cluster.count({ where: { name: { startsWith: "mgmt-team-a-restart" } } }), 0);
      // Gone before its deletion was seen: deregistered as if it had been, the drain recorded as skipped.
      const tombstone = await db().clusterTombstone.findFirstOrThrow({ where: { name: "mgmt-team-a-restart" } });
      assert.equal(tombstone.reason, DELETED_BY_CAPI);
      const wizard = await db().deregistration.findFirstOrThrow({ where: { clusterName: "mgmt-team-a-restart" } });
      assert.match(JSON.parse(wizard.forced)[0].reason, /drain skipped/);
    });

    test("another instance holding a source's lease keeps this one from watching it, until the lease runs out", async () => {
      await stopClusterApi();
      const source = await db().capiSource.findUniqueOrThrow({ where: { name: "mgmt" } });
      await db().capiSource.update({
        where: { id: source.id },
        data: { watcherId: "another-instance", watchLeaseUntil: new Date(Date.now() + 60_000) },
      });
      await runClusterApi();
      assert.equal(watchesSource(source.id), false);
      await db().capiSource.update({ where: { id: source.id }, data: { watchLeaseUntil: new Date(Date.now() - 1) } });
      await runClusterApi();
      assert.equal(watchesSource(source.id), true);
    });
  });
});
