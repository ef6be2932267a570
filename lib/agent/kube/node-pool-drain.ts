import type { LogCode, LogFields, LogLevel } from "../log";
import type { DirectiveState } from "./directive-state";
import { drainVerdict, type DrainOptions, type DrainPod } from "./drain-filters";
import { nodePoolSourceOf, type KubeNode } from "./facts-from-cluster";
import { KubeApiError, kubeStatus, type KubeClient } from "./kube-client";

// drainNodePool as `kubectl drain` does it, one round per heartbeat: refuse (before cordoning)
// when a pod would be lost for good (drain-filters.ts: no controller, emptyDir data) unless the
// directive allows it, cordon the pool's nodes, then ask the Eviction API for every pod that would
// not come straight back. A pod the API server
// refuses for now (a PodDisruptionBudget's 429, the 500 of a pod under several budgets, the 403
// of a namespace being deleted) is asked again next round while the others carry on; a pod being
// deleted is waited for, not evicted again; the agent's own pod goes last. The directive fails
// with the pods still left once its deadline has passed.

export interface NodePoolDrain {
  client: KubeClient;
  /** The nodes of the last facts collection. */
  nodes: KubeNode[];
  /** The agent's own pod (namespace and name), evicted only once every other pod is gone. */
  ownPod: { namespace: string; name: string } | null;
  /** When the directive started, and how long it may take. */
  startedAt: number;
  timeoutMs: number;
  /** What the directive allows to be lost (kubectl drain's --force and --delete-emptydir-data). */
  options: DrainOptions;
  now: number;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
}

const NON_TERMINAL = "status.phase!=Succeeded,status.phase!=Failed";
/** The Status cause the API server gives an eviction in a namespace that is being deleted. */
const NAMESPACE_TERMINATING = "NamespaceTerminating";

type EvictionAnswer = "evicted" | "gone" | "retry";

async function evict(client: KubeClient, pod: DrainPod): Promise<{ answer: EvictionAnswer; why?: string }> {
  const { name, namespace } = pod.metadata;
  const res = await client.request("evictPod", `/api/v1/namespaces/${namespace}/pods/${name}/eviction`, {
    body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace } },
    allow: [403, 404, 429, 500],
  });
  const body = kubeStatus(res.body);
  switch (res.status) {
    case 404:
      return { answer: "gone" };
    case 429:
      return { answer: "retry", why: "a PodDisruptionBudget does not allow it now" };
    case 500:
      // Typically a pod covered by more than one PodDisruptionBudget; kubectl drain retries too.
      return { answer: "retry", why: body.message ?? "the API server failed the eviction" };
    case 403:
      // Its namespace is being deleted: the pod goes with it. Any other 403 is RBAC, which waiting will not change.
      if (body.causes.includes(NAMESPACE_TERMINATING)) return { answer: "retry", why: "its namespace is being deleted" };
      throw new KubeApiError(
        403,
        body.reason ?? "Forbidden",
        `evictPod (POST /api/v1/namespaces/${namespace}/pods/${name}/eviction) failed with HTTP 403${body.message ? `: ${body.message}` : ""}`,
        "evictPod",
      );
    default:
      return { answer: "evicted" };
  }
}

/** Only what a drain decides on is kept of each pod (a node's pods are read whole, for their volumes). */
function slimPod(pod: DrainPod): DrainPod {
  const { name, namespace, deletionTimestamp, annotations, ownerReferences } = pod.metadata;
  const mirror = annotations?.["kubernetes.io/config.mirror"];
  return {
    metadata: {
      name,
      namespace,
      deletionTimestamp,
      ...(mirror !== undefined ? { annotations: { "kubernetes.io/config.mirror": mirror } } : {}),
      ownerReferences: ownerReferences?.map((o) => ({ kind: o.kind, name: o.name, controller: o.controller })),
    },
    spec: {
      volumes: (pod.spec?.volumes ?? []).filter((v) => v.emptyDir !== undefined).map((v) => ({ name: v.name, emptyDir: {} })),
    },
    status: { phase: pod.status?.phase },
  };
}

/** "a, b, c, and 4 more" */
function someOf(items: string[], max = 10): string {
  return items.slice(0, max).join(", ") + (items.length > max ? `, and ${items.length - max} more` : "");
}

/** One round of draining `pool`; called each heartbeat until it is done or failed. */
export async function drainNodePoolRound(o: NodePoolDrain, pool: unknown, id: string): Promise<DirectiveState> {
  const nodes = o.nodes.filter((n) => nodePoolSourceOf(n).name === pool);
  if (typeof pool !== "string" || nodes.length === 0)
    return { state: "failed", reason: `this cluster has no node pool named "${String(pool)}"` };
  const sources = new Set(nodes.map((n) => nodePoolSourceOf(n).from));
  if (sources.has("controlPlane"))
    return { state: "failed", reason: "control-plane nodes are never cordoned or drained by the agent" };
  if (sources.has("instanceType") || sources.has("default")) {
    return {
      state: "failed",
      reason: `"${pool}" is not a node pool of the cloud but the agent's grouping of nodes without a node-pool label (by instance type, else "default"): the agent drains only labelled pools`,
    };
  }
  const c = o.client;
  // Read whole (not as metadata) for their volumes; one node at a time, so a page is ~110 pods.
  const podsOf = new Map<string, DrainPod[]>();
  for (const node of nodes) {
    const pods = await c.listPages<DrainPod, DrainPod[]>(
      "listPods",
      "/api/v1/pods",
      () => [],
      (into, items) => into.push(...items.map(slimPod)),
      { fieldSelector: `spec.nodeName=${node.metadata.name},${NON_TERMINAL}` },
    );
    podsOf.set(node.metadata.name, pods);
  }
  const isOwn = (pod: DrainPod) =>
    !!o.ownPod && pod.metadata.namespace === o.ownPod.namespace && pod.metadata.name === o.ownPod.name;
  const blocked: string[] = [];
  for (const pods of podsOf.values()) {
    for (const pod of pods) {
      // Already being deleted: it is leaving, lost or not.
      if (pod.metadata.deletionTimestamp) continue;
      const verdict = drainVerdict(pod, o.options, isOwn(pod));
      if (verdict.action === "blocked") blocked.push(`${pod.metadata.namespace}/${pod.metadata.name} (${verdict.why})`);
    }
  }
  if (blocked.length > 0) {
    const reason = `node pool ${pool} was not drained, as kubectl drain would not: ${blocked.length} pod(s) would be lost for good: ${someOf(blocked)}. Move them first, or retire the pool again allowing it (force: evict pods no controller recreates; deleteEmptyDirData: evict pods with emptyDir data)`;
    o.log("warn", "DRAIN_BLOCKED", reason, { id, nodePool: pool });
    return { state: "failed", reason };
  }
  for (const node of nodes) {
    if (node.spec?.unschedulable) continue;
    await c.request("cordonNode", `/api/v1/nodes/${node.metadata.name}`, {
      contentType: "application/strategic-merge-patch+json",
      body: { spec: { unschedulable: true } },
    });
    node.spec = { ...node.spec, unschedulable: true };
    o.log("info", "NODE_CORDONED", `cordoned node ${node.metadata.name}`, { nodePool: pool });
  }
  const left: string[] = [];
  const waiting = new Map<string, number>();
  let own: DrainPod | null = null;
  for (const node of nodes) {
    for (const pod of podsOf.get(node.metadata.name) ?? []) {
      if (drainVerdict(pod, o.options, isOwn(pod)).action === "skip") continue;
      const { name, namespace } = pod.metadata;
      const ref = `${namespace}/${name}`;
      if (isOwn(pod)) {
        own = pod;
        continue;
      }
      // Already being deleted (an earlier eviction, or someone else): it is leaving, wait for it.
      if (pod.metadata.deletionTimestamp) {
        left.push(ref);
        continue;
      }
      const { answer, why } = await evict(c, pod);
      if (answer === "gone") continue;
      left.push(ref);
      if (why) waiting.set(why, (waiting.get(why) ?? 0) + 1);
    }
  }
  if (own && left.length === 0 && !own.metadata.deletionTimestamp) {
    // Last: once the agent's pod is evicted its replacement, elsewhere, sees the directive again
    // and finds the pool empty.
    o.log("info", "NODE_POOL_DRAIN", "evicting the agent's own pod last: its replacement finishes the drain", {
      id,
      nodePool: pool,
    });
    const { answer, why } = await evict(c, own);
    if (answer !== "gone") left.push(`${own.metadata.namespace}/${own.metadata.name}`);
    if (why) waiting.set(why, (waiting.get(why) ?? 0) + 1);
  } else if (own) {
    left.push(`${own.metadata.namespace}/${own.metadata.name}`);
  }
  if (left.length === 0) return { state: "done" };
  const reasons = [...waiting].map(([why, n]) => `${n} because ${why}`).join("; ");
  if (o.now - o.startedAt >= o.timeoutMs) {
    const names = left.slice(0, 10).join(", ") + (left.length > 10 ? `, and ${left.length - 10} more` : "");
    return {
      state: "failed",
      reason: `node pool ${pool} was not drained within ${Math.round(o.timeoutMs / 1000)} s: ${left.length} pod(s) left (${names})${reasons ? `; waiting: ${reasons}` : ""}`,
    };
  }
  o.log("info", "NODE_POOL_DRAIN", `draining node pool ${pool}: ${left.length} pod(s) leaving${reasons ? ` (${reasons})` : ""}`, {
    id,
    nodePool: pool,
  });
  return { state: "running" };
}
