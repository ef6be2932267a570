import crypto from "node:crypto";
import type { ApiServerHealth, CompleteFacts, NodePoolFacts } from "../facts";

// A made-up cluster for the reference agent without a cluster and for the simulator. It reacts to
// directives the way a real cluster would, over a few heartbeats, so the control plane's views can
// be exercised.

/** vCPUs and GiB per node for the instance types the simulator uses. */
export const INSTANCE_TYPES: Record<string, { cpu: number; memoryGiB: number }> = {
  "t3.medium": { cpu: 2, memoryGiB: 4 },
  "m5.large": { cpu: 2, memoryGiB: 8 },
  "m5.xlarge": { cpu: 4, memoryGiB: 16 },
  "m5.2xlarge": { cpu: 8, memoryGiB: 32 },
  "m6i.large": { cpu: 2, memoryGiB: 8 },
  "m6i.4xlarge": { cpu: 16, memoryGiB: 64 },
  "c6i.xlarge": { cpu: 4, memoryGiB: 8 },
  "c6i.2xlarge": { cpu: 8, memoryGiB: 16 },
  "r6i.xlarge": { cpu: 4, memoryGiB: 32 },
  "r6i.2xlarge": { cpu: 8, memoryGiB: 64 },
  "g5.xlarge": { cpu: 4, memoryGiB: 16 },
};

export function nodePool(name: string, instanceType: string, nodeCount: number, kubeletVersion: string): NodePoolFacts {
  const shape = INSTANCE_TYPES[instanceType] ?? { cpu: 2, memoryGiB: 8 };
  return {
    name,
    nodeCount,
    readyNodes: nodeCount,
    kubeletVersion,
    instanceType,
    cpuCores: shape.cpu * nodeCount,
    memoryGiB: shape.memoryGiB * nodeCount,
  };
}

/**
 * A stand-in for a simulated cluster's kube-system namespace UID: UUID-shaped (as Kubernetes makes
 * them) and stable per name, so a rerun reports the same cluster; two names never share one
 * unless it is forced (--cluster-uid, the simulator's --duplicate-uids).
 */
export function simulatedClusterUid(name: string): string {
  const hex = crypto.createHash("sha256").update(`simulated-kube-system/${name}`).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface ClusterFactsInit {
  agentVersion: string;
  kubernetesVersion: string;
  nodePools: NodePoolFacts[];
  workloads: { pods: number; namespaces: number };
  /** The kube-system UID it reports; none: it reports none. */
  clusterUid?: string;
}

/** What changed in one step, for the agent to log. */
export type FactsChange =
  | { kind: "upgrade-complete"; agentVersion?: string; kubernetesVersion?: string }
  | { kind: "pool-removed"; name: string }
  | { kind: "drain-complete" };

export interface UpgradeTarget {
  agentVersion?: string;
  kubernetesVersion?: string;
}

/** Heartbeats an upgrade takes before the new version is reported. */
export const UPGRADE_STEPS = 2;
/** Share of pods left after each heartbeat of a drain. */
const DRAIN_KEEP = 0.35;

export class SimulatedCluster {
  agentVersion: string;
  kubernetesVersion: string;
  nodePools: NodePoolFacts[];
  workloads: { pods: number; namespaces: number };
  readonly clusterUid: string | undefined;
  draining = false;
  private healthMode: "ok" | "degraded" = "ok";
  private upgrade: { target: UpgradeTarget; remaining: number } | null = null;
  private poolDrains = new Map<string, number>();
  private lastHealth: ApiServerHealth = "ok";
  private readonly basePods: number;

  constructor(
    init: ClusterFactsInit,
    private readonly random: () => number = Math.random,
  ) {
    this.agentVersion = init.agentVersion;
    this.kubernetesVersion = init.kubernetesVersion;
    this.nodePools = init.nodePools.map((p) => ({ ...p }));
    this.workloads = { ...init.workloads };
    this.basePods = init.workloads.pods;
    this.clusterUid = init.clusterUid;
  }

  /** Plausible facts for one cluster: a system pool and one worker pool. */
  static typical(options: {
    agentVersion: string;
    kubernetesVersion: string;
    random?: () => number;
    clusterUid?: string;
  }): SimulatedCluster {
    const random = options.random ?? Math.random;
    const workers = 3 + Math.floor(random() * 6);
    return new SimulatedCluster(
      {
        agentVersion: options.agentVersion,
        kubernetesVersion: options.kubernetesVersion,
        nodePools: [
          nodePool("system", "m5.large", 3, options.kubernetesVersion),
          nodePool("workers", "m5.xlarge", workers, options.kubernetesVersion),
        ],
        workloads: { pods: 40 + workers * 18, namespaces: 8 + Math.floor(random() * 10) },
        clusterUid: options.clusterUid,
      },
      random,
    );
  }

  get upgrading(): UpgradeTarget | null {
    return this.upgrade ? { ...this.upgrade.target } : null;
  }

  get drainingPools(): string[] {
    return [...this.poolDrains.keys()];
  }

  /** "degraded" fault: from now on the API server is mostly degraded and sometimes down. */
  setHealthMode(mode: "ok" | "degraded") {
    this.healthMode = mode;
    this.lastHealth = mode === "degraded" ? "degraded" : "ok";
  }

  startDrain() {
    this.draining = true;
  }

  /** A cancelled deregistration: the drain stops and the workloads drift back. */
  stopDrain() {
    this.draining = false;
  }

  startUpgrade(target: UpgradeTarget, steps = UPGRADE_STEPS) {
    this.upgrade = { target: { ...target }, remaining: Math.max(1, steps) };
  }

  /** false when there is no such pool. */
  startNodePoolDrain(name: string): boolean {
    const pool = this.nodePools.find((p) => p.name === name);
    if (!pool) return false;
    if (!this.poolDrains.has(name)) this.poolDrains.set(name, Math.max(1, Math.ceil(pool.nodeCount / 3)));
    return true;
  }

  /** Advances the simulation by one heartbeat. */
  tick(): FactsChange[] {
    const changes: FactsChange[] = [];

    if (this.upgrade) {
      this.upgrade.remaining -= 1;
      if (this.upgrade.remaining <= 0) {
        const { target } = this.upgrade;
        if (target.agentVersion) this.agentVersion = target.agentVersion;
        if (target.kubernetesVersion) {
          this.kubernetesVersion = target.kubernetesVersion;
          for (const pool of this.nodePools) pool.kubeletVersion = target.kubernetesVersion;
        }
        this.upgrade = null;
        changes.push({ kind: "upgrade-complete", ...target });
      }
    }

    for (const [name, step] of [...this.poolDrains]) {
      const pool = this.nodePools.find((p) => p.name === name);
      if (!pool) {
        this.poolDrains.delete(name);
        continue;
      }
      if (pool.nodeCount === 0) {
        // Reported empty once; now it is gone.
        this.nodePools = this.nodePools.filter((p) => p !== pool);
        this.poolDrains.delete(name);
        changes.push({ kind: "pool-removed", name });
        continue;
      }
      const perNode = { cpu: pool.cpuCores / pool.nodeCount, mem: pool.memoryGiB / pool.nodeCount };
      pool.readyNodes = Math.max(0, pool.readyNodes - step);
      pool.nodeCount = Math.max(pool.readyNodes, pool.nodeCount - step);
      pool.cpuCores = Math.round(perNode.cpu * pool.nodeCount);
      pool.memoryGiB = Math.round(perNode.mem * pool.nodeCount);
    }

    if (this.draining) {
      if (this.workloads.pods > 0) {
        this.workloads.pods = Math.floor(this.workloads.pods * DRAIN_KEEP);
        if (this.workloads.pods === 0) changes.push({ kind: "drain-complete" });
      }
    } else {
      // Live clusters churn a little; stay near the base so numbers remain plausible.
      const drift = Math.round((this.random() - 0.5) * 0.06 * this.basePods);
      this.workloads.pods = Math.max(0, Math.round((this.workloads.pods * 3 + this.basePods + drift) / 4));
    }

    if (this.healthMode === "degraded") this.lastHealth = this.random() < 0.2 ? "down" : "degraded";
    else this.lastHealth = "ok";
    return changes;
  }

  report(): CompleteFacts {
    return {
      agentVersion: this.agentVersion,
      kubernetesVersion: this.kubernetesVersion,
      nodePools: this.nodePools.map((p) => ({ ...p })),
      workloads: { ...this.workloads },
      health: { apiServer: this.lastHealth, logs: true, metrics: true },
      ...(this.clusterUid ? { clusterUid: this.clusterUid } : {}),
    };
  }
}
