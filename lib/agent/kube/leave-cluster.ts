import { AGENT_OBJECT_NAMES, AGENT_REMOVE_COMMAND, type KubeCallName } from "../../domain/agent-kube-calls";
import type { LogCode, LogFields, LogLevel } from "../log";
import type { KubeClient } from "./kube-client";

// After a disconnect (the state Secret already holds only a tombstone): the agent scales its own
// Deployment to 0, so Kubernetes does not restart what just stopped, and deletes the bindings
// that grant its ServiceAccount anything, so nothing privileged stays behind. The roles, the
// namespace and the ServiceAccount are left for the admin's one command, which the last log line
// (and the console's last wizard step) shows.

export interface LeaveClusterOptions {
  client: KubeClient;
  /** The agent's namespace and Deployment. */
  namespace: string;
  deployment: string;
  allowNodeActions: boolean;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
}

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

export async function leaveCluster(o: LeaveClusterOptions): Promise<void> {
  const c = o.client;
  try {
    await c.request("patchDeployment", `/apis/apps/v1/namespaces/${o.namespace}/deployments/${o.deployment}`, {
      contentType: "application/merge-patch+json",
      body: { spec: { replicas: 0 } },
    });
    o.log("info", "SCALED_TO_ZERO", "scaled the agent's Deployment to 0 replicas");
  } catch (err) {
    o.log("warn", "KUBE_API_ERROR", `could not scale the agent's Deployment to 0: ${(err as Error).message}`);
  }
  const names = AGENT_OBJECT_NAMES;
  // Each binding grants the deletion of itself; the one of the namespace's Role (which allowed
  // the scale above) and the main ClusterRole's go last.
  const bindings: [KubeCallName, string][] = [
    ...(o.allowNodeActions
      ? [
          ["deleteNodeActionsBinding", `${RBAC}/clusterrolebindings/${names.nodeActionsClusterRoleBinding}`] as [
            KubeCallName,
            string,
          ],
        ]
      : []),
    ["deleteClusterInfoRoleBinding", `${RBAC}/namespaces/kube-public/rolebindings/${names.clusterInfoRoleBinding}`],
    ["deleteOwnRoleBinding", `${RBAC}/namespaces/${o.namespace}/rolebindings/${names.roleBinding}`],
    ["deleteClusterRoleBinding", `${RBAC}/clusterrolebindings/${names.clusterRoleBinding}`],
  ];
  const deleted: string[] = [];
  for (const [call, path] of bindings) {
    try {
      await c.request(call, path, { allow: [404] });
      deleted.push(path.split("/").slice(-2).join("/"));
    } catch (err) {
      o.log("warn", "KUBE_API_ERROR", `could not delete a role binding of the agent: ${(err as Error).message}`);
    }
  }
  if (deleted.length) o.log("info", "BINDINGS_DELETED", `deleted the agent's role bindings: ${deleted.join(", ")}`);
  const command = AGENT_REMOVE_COMMAND.replace("namespace fleet-system", `namespace ${o.namespace}`);
  o.log(
    "info",
    "LEFT_FOR_ADMIN",
    `left for the admin, with no binding granting anything: namespace ${o.namespace} (ServiceAccount, Role, the Deployment at 0 replicas, the state Secret's tombstone, the Lease) and the fleet-agent ClusterRoles; remove them with: ${command}`,
  );
}
