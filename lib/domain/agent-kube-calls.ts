// Every Kubernetes API call the in-cluster agent makes, in one table. The agent's client can only
// issue calls named here (lib/agent/kube/kube-client.ts), the manifest's RBAC rules are derived
// from it (agent-manifest.ts), and a test compares both ways, so the agent never needs a
// permission the manifest lacks and the manifest grants nothing the agent does not use.
// Pure data: the console imports it to build the manifest in the browser.

/** Which object a named call targets; the manifest substitutes the real names. */
export type KubeObjectRole =
  | "stateSecret"
  | "tokenSecret"
  | "ownDeployment"
  | "clusterInfo"
  | "metricsApiService"
  | "kubeSystemNamespace"
  | "agentLease"
  | "ownRoleBinding"
  | "clusterInfoRoleBinding"
  | "clusterRoleBinding"
  | "nodeActionsClusterRoleBinding";

export type KubeCall =
  | { kind: "nonResource"; path: "/version" | "/readyz"; verb: "get" }
  | {
      kind: "resource";
      group: string;
      resource: string;
      verb: "get" | "list" | "watch" | "update" | "patch" | "delete" | "create";
      /** cluster: any namespace or cluster-scoped; own: the agent's namespace; kube-public. */
      scope: "cluster" | "own" | "kube-public";
      /** Set when RBAC limits the call to one object (resourceNames). */
      object?: KubeObjectRole;
      /** Only with --allow-node-actions (the optional ClusterRole). */
      nodeActions?: boolean;
    };

export const KUBE_CALLS = {
  version: { kind: "nonResource", path: "/version", verb: "get" },
  readyz: { kind: "nonResource", path: "/readyz", verb: "get" },
  listNodes: { kind: "resource", group: "", resource: "nodes", verb: "list", scope: "cluster" },
  // Nodes are listed once, then watched: a round costs the API server nothing unless they changed.
  watchNodes: { kind: "resource", group: "", resource: "nodes", verb: "watch", scope: "cluster" },
  listPods: { kind: "resource", group: "", resource: "pods", verb: "list", scope: "cluster" },
  listNamespaces: { kind: "resource", group: "", resource: "namespaces", verb: "list", scope: "cluster" },
  // Its metadata.uid is the cluster's own identity (clusterUid): the same cluster registered twice shows.
  getKubeSystemNamespace: {
    kind: "resource",
    group: "",
    resource: "namespaces",
    verb: "get",
    scope: "cluster",
    object: "kubeSystemNamespace",
  },
  listDaemonSets: { kind: "resource", group: "apps", resource: "daemonsets", verb: "list", scope: "cluster" },
  getMetricsApiService: {
    kind: "resource",
    group: "apiregistration.k8s.io",
    resource: "apiservices",
    verb: "get",
    scope: "cluster",
    object: "metricsApiService",
  },
  getClusterInfo: {
    kind: "resource",
    group: "",
    resource: "configmaps",
    verb: "get",
    scope: "kube-public",
    object: "clusterInfo",
  },
  getStateSecret: { kind: "resource", group: "", resource: "secrets", verb: "get", scope: "own", object: "stateSecret" },
  updateStateSecret: { kind: "resource", group: "", resource: "secrets", verb: "update", scope: "own", object: "stateSecret" },
  getTokenSecret: { kind: "resource", group: "", resource: "secrets", verb: "get", scope: "own", object: "tokenSecret" },
  deleteTokenSecret: { kind: "resource", group: "", resource: "secrets", verb: "delete", scope: "own", object: "tokenSecret" },
  getLease: {
    kind: "resource",
    group: "coordination.k8s.io",
    resource: "leases",
    verb: "get",
    scope: "own",
    object: "agentLease",
  },
  updateLease: {
    kind: "resource",
    group: "coordination.k8s.io",
    resource: "leases",
    verb: "update",
    scope: "own",
    object: "agentLease",
  },
  // The agent creates its Lease when missing (GitOps tools commonly leave Leases out of a sync).
  // RBAC cannot limit `create` by name: this grants creating Leases in the agent's namespace only.
  createLease: { kind: "resource", group: "coordination.k8s.io", resource: "leases", verb: "create", scope: "own" },
  getDeployment: { kind: "resource", group: "apps", resource: "deployments", verb: "get", scope: "own", object: "ownDeployment" },
  patchDeployment: {
    kind: "resource",
    group: "apps",
    resource: "deployments",
    verb: "patch",
    scope: "own",
    object: "ownDeployment",
  },
  // On disconnect the agent removes the bindings that grant it anything; the roles stay for the admin.
  deleteOwnRoleBinding: {
    kind: "resource",
    group: "rbac.authorization.k8s.io",
    resource: "rolebindings",
    verb: "delete",
    scope: "own",
    object: "ownRoleBinding",
  },
  deleteClusterInfoRoleBinding: {
    kind: "resource",
    group: "rbac.authorization.k8s.io",
    resource: "rolebindings",
    verb: "delete",
    scope: "kube-public",
    object: "clusterInfoRoleBinding",
  },
  deleteClusterRoleBinding: {
    kind: "resource",
    group: "rbac.authorization.k8s.io",
    resource: "clusterrolebindings",
    verb: "delete",
    scope: "cluster",
    object: "clusterRoleBinding",
  },
  deleteNodeActionsBinding: {
    kind: "resource",
    group: "rbac.authorization.k8s.io",
    resource: "clusterrolebindings",
    verb: "delete",
    scope: "cluster",
    object: "nodeActionsClusterRoleBinding",
    nodeActions: true,
  },
  cordonNode: { kind: "resource", group: "", resource: "nodes", verb: "patch", scope: "cluster", nodeActions: true },
  evictPod: { kind: "resource", group: "", resource: "pods/eviction", verb: "create", scope: "cluster", nodeActions: true },
} as const satisfies Record<string, KubeCall>;

export type KubeCallName = keyof typeof KUBE_CALLS;

export const METRICS_API_SERVICE_NAME = "v1beta1.metrics.k8s.io";
export const CLUSTER_INFO_NAME = "cluster-info";
export const KUBE_SYSTEM_NAMESPACE = "kube-system";

/**
 * What removes the rest of the agent from a cluster after a disconnect (the agent left a
 * tombstone in its state Secret, scaled itself to 0 and deleted its role bindings): the manifest's
 * header, the agent's last log line and the wizard's last step all show this command.
 */
export const AGENT_REMOVE_COMMAND =
  "kubectl delete namespace fleet-system && kubectl delete clusterrole,clusterrolebinding -l app.kubernetes.io/part-of=fleet-registry && kubectl -n kube-public delete role,rolebinding fleet-agent-cluster-info --ignore-not-found";

/** The names the manifest gives the agent's objects (the agent's defaults for its flags). */
export const AGENT_OBJECT_NAMES = {
  namespace: "fleet-system",
  serviceAccount: "fleet-agent",
  deployment: "fleet-agent",
  tokenSecret: "fleet-agent-token",
  stateSecret: "fleet-agent-state",
  /** The Lease the one active agent holds (the agent creates it when missing). */
  lease: "fleet-agent",
  roleBinding: "fleet-agent",
  clusterRoleBinding: "fleet-agent",
  clusterInfoRoleBinding: "fleet-agent-cluster-info",
  nodeActionsClusterRoleBinding: "fleet-agent-node-actions",
} as const;

/** The label the agent's Deployment selects its pod by (`kubectl get pods -l ...`). */
export const AGENT_POD_SELECTOR = { "app.kubernetes.io/name": "fleet-agent" } as const;
