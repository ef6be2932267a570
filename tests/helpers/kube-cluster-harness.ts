// A KubeCluster reading one of kube-clusters.ts through the loopback Kubernetes API, in-process,
// with a clock the test moves: how the engine-free tests of the agent's cluster side start.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after } from "node:test";
import { KubeCluster, type KubeClusterOptions } from "@/lib/agent/kube/kube-cluster";
import { KubeClient } from "@/lib/agent/kube/kube-client";
import { FakeKubeApi } from "./fake-kube-api";
import type { FakeCluster } from "./kube-clusters";

export async function startKubeCluster(
  cluster: FakeCluster,
  options: Partial<Omit<KubeClusterOptions, "client" | "now" | "log">> & { maxPage?: number } = {},
) {
  const { maxPage, ...clusterOptions } = options;
  const api = await new FakeKubeApi(cluster, { tokens: ["t"], maxPage }).start();
  const file = path.join(mkdtempSync(path.join(tmpdir(), "kube-cluster-")), "kubeconfig");
  writeFileSync(file, api.kubeconfig("t"));
  let now = 1_000_000;
  const logs: string[] = [];
  const client = KubeClient.load({ kubeconfig: file, timeoutMs: 10_000 });
  const kube = new KubeCluster({
    client,
    agentVersion: "1.4.0",
    namespace: "fleet-system",
    deployment: "fleet-agent",
    allowNodeActions: false,
    ...clusterOptions,
    now: () => now,
    log: (level, code, message) => logs.push(`${level} ${code} ${message}`),
  });
  after(async () => {
    kube.close();
    await api.stop().catch(() => undefined);
  });
  return { api, kube, client, logs, kubeconfig: file, advance: (ms: number) => (now += ms), now: () => now };
}
