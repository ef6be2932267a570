// Node-pool actions need an agent that says it can carry them out (docs/protocol.md: `capabilities`).

import type { DirectiveType } from "./agent-protocol";
import type { HealthStatus } from "./status";

/** The directive a Retire sends, and the capability an agent advertises for it. */
export const NODE_POOL_ACTION = "drainNodePool" satisfies DirectiveType;

/**
 * Why node-pool actions are unavailable for an agent with these capabilities; null when they are
 * available. An agent that reports no capabilities (an older one) is sent every directive
 * (docs/protocol.md): if it cannot carry one out it answers with a failed ack, shown on the page.
 */
export function nodeActionsProblem(capabilities: readonly string[] | null): string | null {
  if (capabilities !== null && !capabilities.includes(NODE_POOL_ACTION)) {
    return "The agent does not advertise node actions: reinstall it with node actions allowed (--allow-node-actions) to retire pools from here.";
  }
  return null;
}

export type RetirePoolRefusal = { code: "cluster_not_ready" | "last_node_pool"; message: string };

/**
 * Why retiring `pool` is refused, or null. A cluster that is not Ready would not carry the drain
 * out (and its pools' figures are the last it sent); the last active pool would leave the
 * cluster's workloads no nodes to move to.
 */
export function retirePoolRefusal(
  cluster: { health: HealthStatus },
  pools: readonly { name: string; state: string }[],
  pool: string,
): RetirePoolRefusal | null {
  if (cluster.health !== "Ready")
    return {
      code: "cluster_not_ready",
      message: `The cluster is ${cluster.health}: its agent would not carry the drain out, and its node pools are as last reported. Retire pools once it is Ready again.`,
    };
  if (!pools.some((p) => p.name !== pool && p.state === "Active"))
    return {
      code: "last_node_pool",
      message: `${pool} is the cluster's last active node pool: retiring it would leave its workloads no nodes. Add a pool first.`,
    };
  return null;
}
