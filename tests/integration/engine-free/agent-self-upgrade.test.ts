// The agent's own upgrade against the loopback Kubernetes API: the Deployment regenerated from the
// install options and applied server-side on the installed repository, a start fixed at first
// sight, a revert or a GitOps owner never fought, a rollback that survives restarts, and the
// record kept until the new version's first accepted heartbeat.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KubeCluster } from "@/lib/agent/kube/kube-cluster";
import { SecretStateStore } from "@/lib/agent/kube/secret-state";
import { AGENT_INSTALL_ANNOTATION, agentManifestObjects, type ManifestInstall } from "@/lib/domain/agent-manifest";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { aksCluster } from "../../helpers/kube-clusters";

const TIMEOUT_MS = 600_000;
const UPGRADE = { id: "u", type: "upgrade", version: "1.5.0", image: "fleet-registry/agent:1.5.0" };

const INSTALL: ManifestInstall = {
  agentUrl: "https://fleet.example.com:8443",
  caFingerprint: `sha256:${"a".repeat(64)}`,
  // Rewritten to a pull-through cache by the platform team.
  agentImage: "mirror.corp.example/fleet/agent:1.4.0",
  clusterName: "aks-dev-we",
  labels: { env: "dev" },
  token: "frt_unused",
  systemNamespaces: ["monitoring"],
};

type Container = { name: string; image: string; args?: string[] };
const agentContainer = (deployment: Record<string, unknown>) =>
  (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers.find(
    (c) => c.name === "agent",
  )!;

// One loopback API for the file (its CA takes a while to make), reset for each test; started at
// the top level, so it stops after the last test.
const shared = await startKubeCluster(aksCluster());
const pristine = structuredClone(shared.api.deployment);

async function setup(o: { installed?: "generated" } = {}) {
  const h = shared;
  h.api.deployment = structuredClone(pristine);
  h.api.requests.length = 0;
  h.api.secrets.clear();
  h.api.addSecret("fleet-agent-state");
  if (o.installed === "generated") {
    const generated = agentManifestObjects(INSTALL).find((x) => x.kind === "Deployment")!;
    h.api.deployment = structuredClone({ ...generated, metadata: { ...generated.metadata, resourceVersion: "1" } });
    // As an older version's manifest had it: without the flag this version's generator adds.
    const container = agentContainer(h.api.deployment);
    container.args = container.args!.filter((a, i, all) => a !== "--system-namespaces" && all[i - 1] !== "--system-namespaces");
  }
  const records = new SecretStateStore(h.client, { namespace: "fleet-system", name: "fleet-agent-state" });
  const logs: string[] = [];
  const agent = (agentVersion = "1.4.0") =>
    new KubeCluster({
      client: h.client,
      agentVersion,
      namespace: "fleet-system",
      deployment: "fleet-agent",
      allowNodeActions: false,
      upgradeRecords: records,
      upgradeTimeoutMs: TIMEOUT_MS,
      now: h.now,
      log: (level, code, message) => logs.push(`${level} ${code} ${message}`),
    });
  const applies = () => h.api.requests.filter((r) => r.method === "PATCH" && r.path.endsWith("/deployments/fleet-agent"));
  const record = () => {
    const text = h.api.secretText("fleet-agent-state", "upgrade.json");
    return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
  };
  return { ...h, records, agent, applies, record, logs };
}

describe("the agent's own upgrade", () => {
  test("applied once, server-side as fleet-agent, and recorded first; the new version acknowledges it and clears the record only after its first accepted heartbeat", async () => {
    const h = await setup();
    const old = h.agent();
    old.start(UPGRADE);
    await old.progress();
    await old.progress();
    assert.equal(h.api.deploymentState().image, "fleet-registry/agent:1.5.0");
    assert.equal(h.applies().length, 1, "applied once");
    const apply = h.applies()[0]!;
    assert.equal(apply.contentType, "application/apply-patch+yaml");
    assert.deepEqual([apply.query.fieldManager, apply.query.force], ["fleet-agent", "true"]);
    const recordWrite = h.api.requests.findIndex((r) => r.method === "PUT" && r.path.endsWith("/secrets/fleet-agent-state"));
    assert.ok(recordWrite >= 0 && recordWrite < h.api.requests.indexOf(apply), "recorded before the apply");
    assert.deepEqual(old.ackEntries(["u"]), [], "held until the new agent reports");

    const next = h.agent("1.5.0");
    next.start(UPGRADE);
    await next.progress();
    assert.deepEqual(next.ackEntries(["u"]), ["u"]);
    assert.equal(h.applies().length, 1, "no second apply");
    assert.equal(h.record()?.directiveId, "u", "kept until a heartbeat of the new version is accepted");
    await next.afterHeartbeat(false);
    assert.equal(h.record()?.directiveId, "u", "a refused heartbeat proves nothing");
    await next.afterHeartbeat(true);
    assert.equal(h.record(), undefined, "cleared after the first accepted heartbeat");
  });

  test("the installed repository is kept (a mirror), whatever repository the directive names; a digest stays a digest", async () => {
    const h = await setup();
    h.api.setAgentImage("mirror.corp.example/fleet/agent:1.4.0");
    const old = h.agent();
    old.start({ id: "m", type: "upgrade", version: "1.5.0", image: "registry.example.com/fleet/agent:1.5.0" });
    await old.progress();
    assert.equal(h.api.deploymentState().image, "mirror.corp.example/fleet/agent:1.5.0");
    assert.deepEqual(old.ackEntries(["m"]), [], "not refused: running");

    const pinned = await setup();
    const digest = `sha256:${"c".repeat(64)}`;
    const agent = pinned.agent();
    agent.start({ id: "p", type: "upgrade", version: "1.5.0", image: `attacker.example/agent:1.5.0@${digest}` });
    await agent.progress();
    assert.equal(
      pinned.api.deploymentState().image,
      `fleet-registry/agent:1.5.0@${digest}`,
      "the installed repository, the digest kept",
    );
  });

  test("the Deployment is regenerated from the recorded install options; past the deadline the previous template comes back, also after the old agent restarted", async () => {
    const h = await setup({ installed: "generated" });
    const before = structuredClone(agentContainer(h.api.deployment));
    const old = h.agent();
    old.start(UPGRADE);
    await old.progress();
    const applied = h.applies()[0]!.body as { metadata: { annotations: Record<string, string> } };
    assert.ok(applied.metadata.annotations[AGENT_INSTALL_ANNOTATION], "the options travel on");
    const upgraded = agentContainer(h.api.deployment);
    assert.equal(upgraded.image, "mirror.corp.example/fleet/agent:1.5.0");
    assert.deepEqual(upgraded.args!.slice(-2), ["--system-namespaces", "monitoring"], "the new version's flags come along");
    assert.equal(h.record()?.deadline, h.now() + TIMEOUT_MS);

    // The old agent restarts (a new process: a new directive run) well into the wait.
    h.advance(400_000);
    const restarted = h.agent();
    restarted.start(UPGRADE);
    await restarted.progress();
    assert.deepEqual(restarted.ackEntries(["u"]), [], "still waiting");
    h.advance(199_000);
    await restarted.progress();
    assert.deepEqual(restarted.ackEntries(["u"]), [], "the deadline is the first one, not reset by the restart");
    h.advance(1_000);
    await restarted.progress();
    assert.deepEqual(agentContainer(h.api.deployment), before, "image and args restored");
    assert.deepEqual(restarted.ackEntries(["u"]), [
      {
        id: "u",
        ok: false,
        reason:
          "the new agent pod (mirror.corp.example/fleet/agent:1.5.0) was not Ready within 600 s: restored the previous image mirror.corp.example/fleet/agent:1.4.0",
      },
    ]);
    assert.equal(h.record(), undefined, "the record is cleared");
  });

  test("a Deployment put back by a controller fails the directive once, never applied again", async () => {
    const h = await setup();
    const old = h.agent();
    old.start(UPGRADE);
    await old.progress();
    h.advance(30_000);
    h.api.setAgentImage("fleet-registry/agent:1.4.0");
    await old.progress();
    h.advance(30_000);
    await old.progress();
    assert.equal(h.applies().length, 1, "never applied again");
    assert.deepEqual(old.ackEntries(["u"]), [
      {
        id: "u",
        ok: false,
        reason:
          "the Deployment was reverted (GitOps?): it runs fleet-registry/agent:1.4.0 instead of fleet-registry/agent:1.5.0; upgrade through whatever manages it",
      },
    ]);
    assert.equal(h.record(), undefined);
  });

  test("a Deployment managed by Argo CD or Flux is never patched: the ack hands the upgrade to the repository", async () => {
    const marks: [string, Record<string, unknown>, string][] = [
      [
        "argocd",
        { annotations: { "argocd.argoproj.io/tracking-id": "fleet:apps/Deployment:fleet-system/fleet-agent" } },
        "Argo CD",
      ],
      ["flux", { labels: { "kustomize.toolkit.fluxcd.io/name": "fleet-agent" } }, "Flux"],
      ["flux-ssa", { managedFields: [{ manager: "kubectl-client-side-apply" }, { manager: "helm-controller" }] }, "Flux"],
    ];
    for (const [id, meta, by] of marks) {
      const h = await setup();
      h.api.setAgentImage("mirror.corp.example/fleet/agent:1.4.0");
      h.api.deployment.metadata = { ...(h.api.deployment.metadata as object), ...meta };
      const old = h.agent();
      old.start({ ...UPGRADE, id });
      await old.progress();
      const [ack] = old.ackEntries([id]) as { id: string; ok: false; reason: string; code?: string }[];
      assert.equal(ack?.code, "gitops_managed", id);
      assert.match(
        ack!.reason,
        new RegExp(
          `^upgrade through your repository: image mirror\\.corp\\.example/fleet/agent:1\\.5\\.0 \\(${by} manages the Deployment`,
        ),
      );
      assert.equal(h.api.writes().length, 0, `${id}: nothing written`);
    }
  });

  test("a new version that never gets a heartbeat accepted puts the previous template back at the deadline; the previous version then fails the directive", async () => {
    const h = await setup();
    const old = h.agent();
    old.start(UPGRADE);
    await old.progress();
    const next = h.agent("1.5.0");
    h.advance(TIMEOUT_MS - 1);
    await next.afterHeartbeat(false);
    assert.equal(h.api.deploymentState().image, "fleet-registry/agent:1.5.0");
    h.advance(1);
    await next.afterHeartbeat(false);
    assert.equal(h.api.deploymentState().image, "fleet-registry/agent:1.4.0");
    assert.ok(h.logs.some((l) => l.startsWith("warn UPGRADE_ROLLED_BACK no heartbeat accepted")));

    // The previous version is back and sees the directive again: it reports, it does not retry.
    const restored = h.agent();
    restored.start(UPGRADE);
    await restored.progress();
    assert.deepEqual(restored.ackEntries(["u"]), [
      {
        id: "u",
        ok: false,
        reason:
          "version 1.5.0 had no heartbeat accepted by the fleet within 600 s: it restored the previous image fleet-registry/agent:1.4.0",
      },
    ]);
    assert.equal(h.applies().length, 2, "the upgrade and the rollback, nothing more");
    assert.equal(h.record(), undefined);
  });

  test("a full save of the state (a new registration) keeps the upgrade record", async () => {
    const h = await setup();
    const old = h.agent();
    old.start(UPGRADE);
    await old.progress();
    const kept = h.record();
    await h.records.save({
      keyPem: "key",
      certPem: "cert",
      caPem: "ca",
      cluster: {
        clusterId: "c1",
        name: "aks-dev-we",
        serverUrl: "https://fleet.example.com:8443",
        registeredAt: new Date(0).toISOString(),
        heartbeatIntervalSeconds: 30,
        heartbeatPath: "/api/agent/v1/heartbeat",
        clusterCaFingerprint: "",
        agentVersion: "1.4.0",
        kubernetesVersion: "1.29.9",
        appliedPolicyRevision: null,
      },
    });
    assert.deepEqual(h.record(), kept);
    assert.equal(h.api.secretText("fleet-agent-state", "cluster.json")?.includes('"c1"'), true);
  });
});
