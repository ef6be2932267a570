import crypto from "node:crypto";
import { seededRandom } from "../clock";
import type { NodePoolFacts } from "../facts";
import { nodePool, simulatedClusterUid, type ClusterFactsInit } from "./simulated-cluster";

// A plausible fleet, reproducible from a seed: the same --seed gives the same names, labels and
// node pools, so a rerun re-registers the same clusters (same name + same CA fingerprint keeps
// the cluster id) instead of creating new ones.

export const REGIONS = [
  "eu-west-1",
  "eu-central-1",
  "us-east-1",
  "us-west-2",
  "ap-southeast-2",
  "ap-northeast-1",
  "sa-east-1",
] as const;
export const ENVS = ["prod", "staging", "dev"] as const;
export const TEAMS = ["payments", "search", "platform", "data", "identity", "checkout", "ml", "edge"] as const;
export const KUBERNETES_MINORS: Record<string, number> = { "1.28": 15, "1.29": 12, "1.30": 9, "1.31": 5 };
export const AGENT_VERSIONS = ["1.2.3", "1.3.0", "1.3.2", "1.4.0", "1.4.1"] as const;

const WORKER_POOLS: ReadonlyArray<{ name: string; types: string[] }> = [
  { name: "general", types: ["m5.xlarge", "m5.2xlarge", "m6i.4xlarge"] },
  { name: "compute", types: ["c6i.xlarge", "c6i.2xlarge"] },
  { name: "memory", types: ["r6i.xlarge", "r6i.2xlarge"] },
  { name: "gpu", types: ["g5.xlarge"] },
  { name: "spot", types: ["m5.large", "t3.medium"] },
];

export interface SimClusterSpec {
  index: number;
  name: string;
  labels: Record<string, string>;
  apiServerUrl: string;
  clusterCaFingerprint: string;
  facts: ClusterFactsInit;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] ?? items[0]!;
}

function weighted<T extends string>(random: () => number, weights: Record<T, number>): T {
  const entries = Object.entries(weights) as [T, number][];
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let r = random() * total;
  for (const [value, w] of entries) {
    r -= w;
    if (r < 0) return value;
  }
  return entries[entries.length - 1]![0];
}

function kubernetesVersion(random: () => number): string {
  // Most of a fleet sits on the two newest minors; a tail lags behind.
  const minor = weighted(random, { "1.28": 1, "1.29": 2, "1.30": 4, "1.31": 3 });
  return `${minor}.${Math.floor(random() * ((KUBERNETES_MINORS[minor] ?? 5) + 1))}`;
}

/** Kubelets may lag the control plane by a minor version (version skew policy allows it). */
function kubeletVersion(random: () => number, cluster: string): string {
  if (random() > 0.15) return cluster;
  const [major, minor] = cluster.split(".").map(Number);
  return minor && minor > 28 ? `${major}.${minor - 1}.${Math.floor(random() * 8)}` : cluster;
}

/** Deterministic per name and seed: a stand-in for the cluster's own CA (metadata only). */
export function simulatedClusterCaFingerprint(name: string, seed: number): string {
  return "sha256:" + crypto.createHash("sha256").update(`simulated-cluster-ca/${seed}/${name}`).digest("hex");
}

/**
 * `duplicateUids`: that many pairs of neighbours (clusters 0 and 1, 2 and 3, ...) report one
 * kube-system UID, as one Kubernetes cluster registered twice would: the console flags both.
 */
export function generateFleet(
  count: number,
  options: { prefix: string; seed: number; duplicateUids?: number },
): SimClusterSpec[] {
  const random = seededRandom(options.seed);
  const width = Math.max(4, String(count - 1).length);
  const specs: SimClusterSpec[] = [];
  for (let index = 0; index < count; index++) {
    const region = pick(random, REGIONS);
    const env = weighted(random, { prod: 4, staging: 3, dev: 3 });
    const team = pick(random, TEAMS);
    const tier =
      env === "prod" ? weighted(random, { critical: 2, standard: 3 }) : weighted(random, { standard: 1, "best-effort": 2 });
    const name = `${options.prefix}-${region}-${env}-${String(index).padStart(width, "0")}`;
    const k8s = kubernetesVersion(random);

    const pools: NodePoolFacts[] = [nodePool("system", pick(random, ["m5.large", "m6i.large"]), 3, kubeletVersion(random, k8s))];
    const workerCount = Math.floor(random() * 4);
    const used = new Set<string>();
    for (let i = 0; i < workerCount; i++) {
      const kind = pick(random, WORKER_POOLS);
      if (used.has(kind.name)) continue;
      used.add(kind.name);
      const type = pick(random, kind.types);
      const nodes = kind.name === "gpu" ? 1 + Math.floor(random() * 4) : 2 + Math.floor(random() * (env === "prod" ? 38 : 10));
      pools.push(nodePool(kind.name, type, nodes, kubeletVersion(random, k8s)));
    }
    const cpu = pools.reduce((s, p) => s + p.cpuCores, 0);
    const nodes = pools.reduce((s, p) => s + p.nodeCount, 0);

    specs.push({
      index,
      name,
      labels: { env, region, team, tier },
      apiServerUrl: `https://api.${name}.${region}.k8s.example.internal:6443`,
      clusterCaFingerprint: simulatedClusterCaFingerprint(name, options.seed),
      facts: {
        agentVersion: pick(random, AGENT_VERSIONS),
        kubernetesVersion: k8s,
        nodePools: pools,
        // Density follows capacity: about 4-8 pods per vCPU, never above 110 per node.
        workloads: {
          pods: Math.min(nodes * 110, Math.round(cpu * (4 + random() * 4))),
          namespaces: 4 + Math.floor(random() * 30),
        },
        clusterUid: simulatedClusterUid(name),
      },
    });
  }
  for (let pair = 0; pair < (options.duplicateUids ?? 0) && 2 * pair + 1 < count; pair++)
    specs[2 * pair + 1]!.facts.clusterUid = specs[2 * pair]!.facts.clusterUid;
  return specs;
}
