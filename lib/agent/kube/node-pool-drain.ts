import type { LogCode, LogFields, LogLevel } from "../log";
import type { DirectiveState } from "./directive-state";
import { isTerminal, nodePoolSourceOf, type KubeNode, type KubePod } from "./facts-from-cluster";
import { ACCEPT_METADATA_LIST, KubeApiError, kubeStatus, type KubeClient } from "./kube-client";

// drainNodePool as `kubectl drain` does it, one round per heartbeat: cordon the pool's nodes, then
// ask the Eviction API for every pod that would not come straight back. A pod the API server
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
  now: number;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
}

const NON_TERMINAL = "status.phase!=Succeeded,status.phase!=Failed";
/** The Status cause the API server gives an eviction in a namespace that is being deleted. */
const NAMESPACE_TERMINATING = "NamespaceTerminating";

type EvictionAnswer = "evicted" | "gone" | "retry";

async function evict(client: KubeClient, pod: KubePod): Promise<{ answer: EvictionAnswer; why?: string }> {
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

/** Pods a drain leaves alone: finished, a DaemonSet's (they would come straight back), static mirror pods. */
function staysOnNode(pod: KubePod): boolean {
  return isTerminal(pod) || (pod.metadata.ownerReferences ?? []).some((o) => o.kind === "DaemonSet" || o.kind === "Node");
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
  let own: KubePod | null = null;
  for (const node of nodes) {
    const pods = await c.listPages<KubePod, KubePod[]>(
      "listPods",
      "/api/v1/pods",
      () => [],
      (into, items) => into.push(...items),
      { fieldSelector: `spec.nodeName=${node.metadata.name},${NON_TERMINAL}`, accept: ACCEPT_METADATA_LIST },
    );
    for (const pod of pods) {
      if (staysOnNode(pod)) continue;
      const { name, namespace } = pod.metadata;
      const ref = `${namespace}/${name}`;
      if (o.ownPod && namespace === o.ownPod.namespace && name === o.ownPod.name) {
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
