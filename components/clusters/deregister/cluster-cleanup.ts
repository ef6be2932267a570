import { AGENT_OBJECT_NAMES, AGENT_REMOVE_COMMAND } from "@/lib/domain/agent-kube-calls";
import type { Deregistration } from "@/lib/client/clusters";

// What a removed cluster still holds until an admin runs the cleanup command, derived from what
// survives the removal: the wizard's record (its forced steps) and the fixed names the manifest
// gives the agent's objects. Pure, no React: the last step renders it and tests read it.

export type LeftoverKey = "deployment" | "namespace" | "service-account" | "rbac" | "secrets";
export type Leftover = { key: LeftoverKey; what: string; detail: string };

export type ClusterCleanup = {
  /** The one command that deletes everything the manifest created. */
  command: string;
  /** true: the agent acknowledged the disconnect (scaled itself to 0, deleted its bindings and key). */
  agentDisconnected: boolean;
  /** What is left in the cluster until the command runs, most important first. */
  leftovers: Leftover[];
};

const N = AGENT_OBJECT_NAMES;
const PART_OF = "app.kubernetes.io/part-of=fleet-registry";

/** The cleanup of a removed cluster, or null while it is not removed (the agent may still come back). */
export function clusterCleanup(d: Pick<Deregistration, "step" | "forced">): ClusterCleanup | null {
  if (d.step !== "removed") return null;
  // A removal is forced exactly when the agent never acknowledged the disconnect directive.
  const agentDisconnected = !d.forced.some((f) => f.action === "remove");
  const leftovers: Leftover[] = agentDisconnected
    ? [
        {
          key: "deployment",
          what: `Deployment ${N.namespace}/${N.deployment}`,
          detail: "scaled to 0 replicas by the agent when it disconnected: nothing runs",
        },
        {
          key: "namespace",
          what: `Namespace ${N.namespace}`,
          detail: `with the agent's Role and its Lease ${N.lease}`,
        },
        {
          key: "service-account",
          what: `ServiceAccount ${N.namespace}/${N.serviceAccount}`,
          detail: "bound to nothing: the agent deleted its role bindings",
        },
        {
          key: "rbac",
          what: `ClusterRoles labelled ${PART_OF}, Role kube-public/${N.clusterInfoRoleBinding}`,
          detail: "unbound roles: they grant nothing until bound again",
        },
        {
          key: "secrets",
          what: `Secret ${N.namespace}/${N.stateSecret}`,
          detail:
            "holds only a tombstone (the key and certificate are deleted), so a restarted agent idles instead of registering",
        },
      ]
    : [
        {
          key: "deployment",
          what: `Deployment ${N.namespace}/${N.deployment}`,
          detail:
            "may still be running: the agent never acknowledged the disconnect. If it reaches the fleet again it is refused (410), then stops and deletes its bindings",
        },
        {
          key: "namespace",
          what: `Namespace ${N.namespace}`,
          detail: `with the agent's Role, RoleBinding and its Lease ${N.lease}`,
        },
        {
          key: "service-account",
          what: `ServiceAccount ${N.namespace}/${N.serviceAccount}`,
          detail: "still bound to the agent's roles",
        },
        {
          key: "rbac",
          what: `ClusterRoles and ClusterRoleBindings labelled ${PART_OF}, Role and RoleBinding kube-public/${N.clusterInfoRoleBinding}`,
          detail: "still grant the agent's read access (and node actions, if they were allowed)",
        },
        {
          key: "secrets",
          what: `Secret ${N.namespace}/${N.stateSecret}`,
          detail: "the state Secret still holds the agent's private key and its (now refused) certificate",
        },
      ];
  return { command: AGENT_REMOVE_COMMAND, agentDisconnected, leftovers };
}
