// The cluster facts an agent reports in each heartbeat (docs/protocol.md): read from the Kubernetes API
// (kube/facts-from-cluster.ts) or made up by a simulated cluster (simulator/simulated-cluster.ts).

export interface NodePoolFacts {
  name: string;
  nodeCount: number;
  readyNodes: number;
  /** Absent when no node reports one (the body's field is optional). */
  kubeletVersion?: string;
  instanceType?: string;
  /** Totals for the pool (nodes x per-node capacity), so capacity views can sum them. */
  cpuCores: number;
  memoryGiB: number;
}

export type ApiServerHealth = "ok" | "degraded" | "down";

export interface FactsReport {
  agentVersion: string;
  /** Absent when a real cluster's API server has not told it (the protocol's field is optional). */
  kubernetesVersion?: string;
  nodePools: NodePoolFacts[];
  /** userPods: pods outside system namespaces, DaemonSets and the agent (real clusters only). */
  workloads: { pods: number; namespaces: number; userPods?: number };
  health: { apiServer: ApiServerHealth; logs: boolean; metrics: boolean };
  /** The kube-system namespace's UID: the Kubernetes cluster's own identity; absent while unknown. */
  clusterUid?: string;
}
