// The cluster facts an agent reports in each heartbeat (docs/protocol.md): read from the Kubernetes API
// (kube/facts-from-cluster.ts) or made up by a simulated cluster (simulator/simulated-cluster.ts).
// Each part is read on its own and sent once read: a part not read yet is absent ("not yet read",
// the control plane keeps what it has), never a zero.

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

/** The parts of the facts read on their own, each with its own age (`factAges` in the heartbeat). */
export const FACT_PARTS = ["kubernetesVersion", "nodePools", "namespaces", "pods", "apiServer", "logs", "metrics"] as const;
export type FactPart = (typeof FACT_PARTS)[number];

export interface FactsReport {
  agentVersion: string;
  /** Absent when a real cluster's API server has not told it (the protocol's field is optional). */
  kubernetesVersion?: string;
  /** Absent until the nodes have been read. */
  nodePools?: NodePoolFacts[];
  /** Absent until both pods and namespaces have been counted. userPods: pods outside system namespaces, DaemonSets and the agent (real clusters only). */
  workloads?: { pods: number; namespaces: number; userPods?: number };
  /** Absent until /readyz has answered; logs and metrics absent until their objects have been read. */
  health?: { apiServer: ApiServerHealth; logs?: boolean; metrics?: boolean };
  /** The kube-system namespace's UID: the Kubernetes cluster's own identity; absent while unknown. */
  clusterUid?: string;
  /** Seconds since each part sent was read (a real cluster's; made-up facts have none). */
  factAges?: Partial<Record<FactPart, number>>;
}

/** Facts with every part read: a simulated cluster's, which need no reading. */
export type CompleteFacts = FactsReport &
  Required<Pick<FactsReport, "nodePools" | "workloads">> & {
    health: { apiServer: ApiServerHealth; logs: boolean; metrics: boolean };
  };
