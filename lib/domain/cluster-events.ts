// The kinds of a cluster's history (ClusterEvent.kind): the one list the writers are typed by and
// the cluster page shows. What is not history (an agent's capabilities, say) is a column instead,
// because retention prunes the history.

export const CLUSTER_EVENT_KINDS = {
  status: "a status transition the sweeper recorded (Pending, Ready, NotReady)",
  phase: "a lifecycle phase change (registration, upgrades, draining, deregistration)",
  enrollment: "the enrollment checklist became complete, or stopped being",
  certificate: "an operator revoked the cluster's certificates",
  nodePool: "a node pool's state changed (retired through the console)",
} as const;

export type ClusterEventKind = keyof typeof CLUSTER_EVENT_KINDS;

/** A history row as its writers build it. */
export type ClusterEventRow = {
  clusterId: string;
  clusterName: string;
  kind: ClusterEventKind;
  fromValue?: string | null;
  toValue: string;
  reason: string;
  at: Date;
};
