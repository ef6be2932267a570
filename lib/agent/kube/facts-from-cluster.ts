import type { ApiServerHealth, CompleteFacts, NodePoolFacts } from "../facts";
import { parseQuantity } from "./quantity";

// What a real cluster's API objects say, as the heartbeat body of docs/protocol.md. Pure: the Kubernetes
// access layer (kube-facts.ts) reads the objects, this turns them into facts, and the unit tests
// feed it objects shaped like those of EKS, GKE and AKS. Only the fields read here are typed.

export interface KubeMeta {
  name: string;
  namespace?: string;
  /** Read from watch events (where the watch goes on from); not kept by slimNode. */
  resourceVersion?: string;
  /** Set once the pod is being deleted (an eviction went through, or someone deleted it). */
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  ownerReferences?: { kind: string; name: string }[];
}

export interface KubeNode {
  metadata: KubeMeta;
  spec?: { unschedulable?: boolean };
  status?: {
    conditions?: { type: string; status: string }[];
    nodeInfo?: { kubeletVersion?: string };
    allocatable?: Record<string, string>;
    capacity?: Record<string, string>;
  };
}

/**
 * The part of a node the agent reads (name, labels, cordon, Ready, kubelet, allocatable and
 * capacity). A node as the API server sends it is ~20 KB (managedFields, images); kept whole
 * for thousands of nodes between reads it would be most of the agent's memory.
 */
export function slimNode(node: KubeNode): KubeNode {
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  const { allocatable, capacity } = node.status ?? {};
  return {
    metadata: { name: node.metadata.name, ...(node.metadata.labels ? { labels: node.metadata.labels } : {}) },
    ...(node.spec?.unschedulable ? { spec: { unschedulable: true } } : {}),
    status: {
      conditions: ready ? [{ type: ready.type, status: ready.status }] : [],
      nodeInfo: { kubeletVersion: node.status?.nodeInfo?.kubeletVersion },
      ...(allocatable ? { allocatable: { ...pick(allocatable) } } : {}),
      ...(capacity ? { capacity: { ...pick(capacity) } } : {}),
    },
  };
}

/** cpu and memory: the resources a pool's capacity is summed from. */
function pick(resources: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  if (resources.cpu !== undefined) out.cpu = resources.cpu;
  if (resources.memory !== undefined) out.memory = resources.memory;
  return out;
}

/** A pod as a PartialObjectMetadata (metadata only) or a full object; status only in the latter. */
export interface KubePod {
  metadata: KubeMeta;
  status?: { phase?: string };
}

export interface KubeDaemonSet {
  metadata: KubeMeta;
  status?: { numberReady?: number; desiredNumberScheduled?: number };
}

export interface KubeApiService {
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * How GET /readyz went: an HTTP status and the time it took, or no answer at all (`timedOut`: the
 * connection was taken but the answer did not come in time).
 */
export type ReadyzResult = { status: number; latencyMs: number } | { error: string; timedOut?: boolean };

/** A pod count computed from the pod list, cached between recounts on big clusters. */
export interface PodCounts {
  pods: number;
  userPods: number;
}

export interface ClusterObjects {
  gitVersion: string;
  nodes: KubeNode[];
  namespaces: number;
  pods: PodCounts;
  daemonSets: KubeDaemonSet[];
  /** The v1beta1.metrics.k8s.io APIService, or null when it does not exist. */
  metricsApiService: KubeApiService | null;
  readyz: ReadyzResult;
}

/** Labels naming a node's pool, most specific first: managed node groups, then Karpenter. */
export const NODE_POOL_LABELS = [
  "eks.amazonaws.com/nodegroup",
  "cloud.google.com/gke-nodepool",
  "kubernetes.azure.com/agentpool",
  "agentpool",
  "karpenter.sh/nodepool",
] as const;
export const INSTANCE_TYPE_LABELS = ["node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"] as const;
export const DEFAULT_POOL = "default";
/** Control-plane nodes are a pool of their own, whatever else their labels say. */
export const CONTROL_PLANE_POOL = "control-plane";
export const CONTROL_PLANE_LABELS = ["node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"] as const;

/**
 * Namespaces whose pods are the platform's, not the teams': a drain does not wait for them. An
 * entry ending in "-" is a prefix (OpenShift, GKE and Rancher run their platform in many
 * namespaces of one prefix); --system-namespaces adds more of either kind.
 */
export const SYSTEM_NAMESPACES = [
  "kube-system",
  "kube-public",
  "kube-node-lease",
  "calico-system",
  "tigera-operator",
  "gatekeeper-system",
  "openshift-",
  "gke-",
  "gmp-",
  "cattle-",
] as const;

export function isSystemNamespace(namespace: string, extra: readonly string[] = []): boolean {
  const matches = (entry: string) => (entry.endsWith("-") ? namespace.startsWith(entry) : namespace === entry);
  return SYSTEM_NAMESPACES.some(matches) || extra.some(matches);
}

/**
 * A log collector is a DaemonSet whose name or `app.kubernetes.io/name` label contains one of these
 * (fluent-bit, fluentd, vector, promtail, an OpenTelemetry collector) with at least one pod ready.
 */
export const LOG_COLLECTORS = [
  "fluent-bit",
  "fluentbit",
  "fluentd",
  "vector",
  "promtail",
  "otel-collector",
  "opentelemetry-collector",
];
export const METRICS_API_SERVICE = "v1beta1.metrics.k8s.io";
/** /readyz slower than this counts as degraded. */
export const SLOW_READYZ_MS = 2_000;

/** `v1.31.4-eks-2d5f260` -> `1.31.4`; null when there is no major.minor.patch at the start. */
export function kubernetesVersionOf(gitVersion: string | undefined): string | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(gitVersion?.trim() ?? "");
  return match ? `${Number(match[1])}.${Number(match[2])}.${Number(match[3])}` : null;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export function isControlPlaneNode(node: KubeNode): boolean {
  const labels = node.metadata.labels ?? {};
  return CONTROL_PLANE_LABELS.some((key) => key in labels);
}

/**
 * A node's pool and where its name came from: a pool label names a real pool; an instance type
 * or "default" is only a fallback grouping, which the agent reports but never acts on.
 */
export function nodePoolSourceOf(node: KubeNode): { name: string; from: "controlPlane" | "label" | "instanceType" | "default" } {
  if (isControlPlaneNode(node)) return { name: CONTROL_PLANE_POOL, from: "controlPlane" };
  const labels = node.metadata.labels ?? {};
  for (const key of NODE_POOL_LABELS) if (labels[key]) return { name: labels[key], from: "label" };
  for (const key of INSTANCE_TYPE_LABELS) if (labels[key]) return { name: labels[key], from: "instanceType" };
  return { name: DEFAULT_POOL, from: "default" };
}

export function nodePoolOf(node: KubeNode): string {
  return nodePoolSourceOf(node).name;
}

export function instanceTypeOf(node: KubeNode): string | null {
  const labels = node.metadata.labels ?? {};
  for (const key of INSTANCE_TYPE_LABELS) if (labels[key]) return labels[key];
  return null;
}

/** Ready = condition Ready is True and the node is not cordoned (it takes no new pods). */
export function isNodeReady(node: KubeNode): boolean {
  const ready = node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
  return ready && !node.spec?.unschedulable;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export function nodePoolsOf(nodes: KubeNode[]): NodePoolFacts[] {
  const pools = new Map<string, { nodes: KubeNode[] }>();
  for (const node of nodes) {
    const name = nodePoolOf(node).slice(0, 63);
    const pool = pools.get(name) ?? { nodes: [] };
    pool.nodes.push(node);
    pools.set(name, pool);
  }
  return [...pools.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, { nodes: members }]) => {
      let cpu = 0;
      let bytes = 0;
      let kubelet: string | null = null;
      const types = new Map<string, number>();
      for (const node of members) {
        cpu += parseQuantity(node.status?.allocatable?.cpu) ?? 0;
        bytes += parseQuantity(node.status?.allocatable?.memory) ?? 0;
        const version = kubernetesVersionOf(node.status?.nodeInfo?.kubeletVersion);
        if (version && (!kubelet || compareVersions(version, kubelet) < 0)) kubelet = version;
        const type = instanceTypeOf(node);
        if (type) types.set(type, (types.get(type) ?? 0) + 1);
      }
      // Mixed pools (Karpenter) report their most common instance type.
      const instanceType = [...types.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
      const pool: NodePoolFacts = {
        name,
        nodeCount: members.length,
        readyNodes: members.filter(isNodeReady).length,
        ...(kubelet ? { kubeletVersion: kubelet } : {}),
        ...(instanceType ? { instanceType: instanceType.slice(0, 100) } : {}),
        cpuCores: round(cpu, 2),
        memoryGiB: round(bytes / 2 ** 30, 1),
      };
      return pool;
    });
}

/** The pool that carries the totals of the pools beyond the protocol's limit. */
export const OTHER_POOL = "other";

/**
 * At most `max` pools, as the protocol allows: the largest `max - 1` by node count (then by name),
 * and one `other` pool with the totals of the rest (a real pool named "other" is among the rest,
 * so names stay unique). `folded` is how many pools went into `other` (0: none).
 */
export function capNodePools(pools: NodePoolFacts[], max: number): { pools: NodePoolFacts[]; folded: number } {
  if (pools.length <= max) return { pools, folded: 0 };
  const ranked = [...pools].sort((a, b) => b.nodeCount - a.nodeCount || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const kept: NodePoolFacts[] = [];
  const rest: NodePoolFacts[] = [];
  for (const pool of ranked) (kept.length < max - 1 && pool.name !== OTHER_POOL ? kept : rest).push(pool);
  let kubelet: string | null = null;
  for (const p of rest)
    if (p.kubeletVersion && (!kubelet || compareVersions(p.kubeletVersion, kubelet) < 0)) kubelet = p.kubeletVersion;
  const other: NodePoolFacts = {
    name: OTHER_POOL,
    nodeCount: rest.reduce((n, p) => n + p.nodeCount, 0),
    readyNodes: rest.reduce((n, p) => n + p.readyNodes, 0),
    ...(kubelet ? { kubeletVersion: kubelet } : {}),
    cpuCores: round(
      rest.reduce((n, p) => n + p.cpuCores, 0),
      2,
    ),
    memoryGiB: round(
      rest.reduce((n, p) => n + p.memoryGiB, 0),
      1,
    ),
  };
  return { pools: [...kept, other], folded: rest.length };
}

export function isTerminal(pod: KubePod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

/**
 * A user pod: not in a system namespace (built-in or `extraSystem`) or the agent's own, not a
 * DaemonSet's (those run on every node whatever the teams deploy) and not a static mirror pod
 * (owned by its Node).
 */
export function isUserPod(pod: KubePod, agentNamespace: string, extraSystem: readonly string[] = []): boolean {
  const ns = pod.metadata.namespace ?? "";
  if (ns === agentNamespace || isSystemNamespace(ns, extraSystem)) return false;
  return !(pod.metadata.ownerReferences ?? []).some((o) => o.kind === "DaemonSet" || o.kind === "Node");
}

/** Adds one page of pods to running counts (the access layer counts page by page). */
export function countPods(
  pods: KubePod[],
  agentNamespace: string,
  into: PodCounts = { pods: 0, userPods: 0 },
  extraSystem: readonly string[] = [],
): PodCounts {
  for (const pod of pods) {
    if (isTerminal(pod)) continue;
    into.pods += 1;
    if (isUserPod(pod, agentNamespace, extraSystem)) into.userPods += 1;
  }
  return into;
}

export function isLogCollector(ds: KubeDaemonSet): boolean {
  const names = [ds.metadata.name, ds.metadata.labels?.["app.kubernetes.io/name"] ?? ""].map((n) => n.toLowerCase());
  return names.some((n) => LOG_COLLECTORS.some((c) => n.includes(c))) && (ds.status?.numberReady ?? 0) > 0;
}

export function metricsAvailable(service: KubeApiService | null): boolean {
  return service?.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") ?? false;
}

export function apiServerHealth(readyz: ReadyzResult): ApiServerHealth {
  // An API server that takes the connection but answers slowly is degraded, not down.
  if ("error" in readyz) return readyz.timedOut ? "degraded" : "down";
  if (readyz.status >= 200 && readyz.status < 300 && readyz.latencyMs <= SLOW_READYZ_MS) return "ok";
  return "degraded";
}

export function factsFromCluster(objects: ClusterObjects, agentVersion: string): CompleteFacts {
  const kubernetesVersion = kubernetesVersionOf(objects.gitVersion);
  if (!kubernetesVersion) throw new Error(`the API server's /version gitVersion "${objects.gitVersion}" is not a version`);
  return {
    agentVersion,
    kubernetesVersion,
    nodePools: nodePoolsOf(objects.nodes),
    workloads: { pods: objects.pods.pods, namespaces: objects.namespaces, userPods: objects.pods.userPods },
    health: {
      apiServer: apiServerHealth(objects.readyz),
      logs: objects.daemonSets.some(isLogCollector),
      metrics: metricsAvailable(objects.metricsApiService),
    },
  };
}
