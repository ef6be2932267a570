// What the agent tells a real API server about itself, and the fleet about the API server, when
// /version does not answer: against the loopback Kubernetes API in-process.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { KubeCluster } from "@/lib/agent/kube/kube-cluster";
import { KubeClient } from "@/lib/agent/kube/kube-client";
import { AGENT_VERSION } from "@/lib/agent/version";
import { FakeKubeApi } from "../../helpers/fake-kube-api";
import { aksCluster } from "../../helpers/kube-clusters";

const api = await new FakeKubeApi(aksCluster(), { tokens: ["t"] }).start();
const file = path.join(mkdtempSync(path.join(tmpdir(), "kube-version-")), "kubeconfig");
writeFileSync(file, api.kubeconfig("t"));
const kube = new KubeCluster({
  client: KubeClient.load({ kubeconfig: file, timeoutMs: 10_000 }),
  agentVersion: AGENT_VERSION,
  namespace: "fleet-system",
  deployment: "fleet-agent",
  allowNodeActions: false,
  now: Date.now,
  log: () => {},
});
after(async () => {
  kube.close();
  await api.stop();
});

test("/version failing: the facts carry no Kubernetes version (unknown, not made up); once read, the last one stays", async () => {
  api.version = 403;
  const facts = await kube.collect();
  assert.equal("kubernetesVersion" in facts, false, JSON.stringify(facts));
  assert.equal(kube.kubernetesVersion, undefined);
  api.version = "ok";
  assert.equal((await kube.collect()).kubernetesVersion, api.cluster.gitVersion.replace(/^v/, ""));
  api.version = 500;
  assert.equal((await kube.collect()).kubernetesVersion, api.cluster.gitVersion.replace(/^v/, ""));
});

test("every API request names the agent: User-Agent fleet-agent/<its version>", async () => {
  await kube.collect();
  assert.ok(api.requests.length > 0);
  assert.deepEqual([...new Set(api.requests.map((r) => r.userAgent))], [`fleet-agent/${AGENT_VERSION}`]);
});
