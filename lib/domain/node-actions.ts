// Node-pool actions need an agent that says it can carry them out (docs/protocol.md: `capabilities`).

import type { DirectiveType } from "./agent-protocol";

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
