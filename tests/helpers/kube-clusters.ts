// Realistic Kubernetes API objects for the agent's tests: nodes labelled as EKS, GKE and AKS label
// them (with the allocatable quantities and kubelet versions those providers report), pods as
// PartialObjectMetadata, DaemonSets and the metrics APIService. Shared by the unit tests of the
// facts function and the fake API server of the integration tests.

export interface FakeNode {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    uid?: string;
    labels: Record<string, string>;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    managedFields?: unknown[];
  };
  spec: { unschedulable?: boolean; providerID?: string };
  status: {
    conditions: { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: string }[];
    images?: { names: string[]; sizeBytes: number }[];
    nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string; osImage: string };
    allocatable: Record<string, string>;
    capacity: Record<string, string>;
  };
}

export interface FakePod {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    labels?: Record<string, string>;
    /** kubernetes.io/config.mirror on a static pod's mirror, as the kubelet writes it. */
    annotations?: Record<string, string>;
    /** Being deleted: the API server still lists it until its containers stop. */
    deletionTimestamp?: string;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller: boolean }[];
  };
  spec: { nodeName: string; volumes?: { name: string; emptyDir?: { sizeLimit?: string } }[] };
  status: { phase: string };
}

export interface FakeDaemonSet {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  status: { desiredNumberScheduled: number; numberReady: number };
}

export interface FakeCluster {
  name: string;
  gitVersion: string;
  nodes: FakeNode[];
  namespaces: string[];
  pods: FakePod[];
  daemonSets: FakeDaemonSet[];
  metrics: boolean;
  /** The server of kube-public/cluster-info, when the cluster publishes one. */
  clusterInfoServer: string | null;
}

function node(
  name: string,
  labels: Record<string, string>,
  opts: { kubelet: string; cpu: string; memory: string; ready?: boolean; cordoned?: boolean; runtime?: string },
): FakeNode {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, uid: `uid-${name}`, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", ...labels } },
    spec: opts.cordoned ? { unschedulable: true } : {},
    status: {
      conditions: [
        { type: "MemoryPressure", status: "False" },
        { type: "DiskPressure", status: "False" },
        opts.ready === false
          ? { type: "Ready", status: "Unknown", reason: "NodeStatusUnknown" }
          : { type: "Ready", status: "True", reason: "KubeletReady" },
      ],
      nodeInfo: {
        kubeletVersion: opts.kubelet,
        containerRuntimeVersion: opts.runtime ?? "containerd://1.7.22",
        osImage: "Linux",
      },
      allocatable: { cpu: opts.cpu, memory: opts.memory, pods: "110", "ephemeral-storage": "76224326324" },
      capacity: { cpu: "4", memory: "16Gi", pods: "110" },
    },
  };
}

let podSeq = 0;
function pods(
  namespace: string,
  count: number,
  nodeNames: string[],
  owner?: { kind: string; name: string },
  phase = "Running",
): FakePod[] {
  return Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `${owner?.name ?? "pod"}-${i}-${(podSeq++).toString(36)}`,
      namespace,
      uid: `pod-${podSeq}`,
      ...(owner
        ? {
            ownerReferences: [
              { apiVersion: "apps/v1", kind: owner.kind, name: owner.name, uid: `own-${owner.name}`, controller: true },
            ],
          }
        : {}),
    },
    spec: { nodeName: nodeNames[i % nodeNames.length]! },
    status: { phase },
  }));
}

function daemonSetPods(namespace: string, name: string, nodeNames: string[]): FakePod[] {
  return pods(namespace, nodeNames.length, nodeNames, { kind: "DaemonSet", name });
}

/**
 * EKS, 1.31: two managed node groups, one of them with a cordoned node and a NotReady node;
 * fluent-bit in amazon-cloudwatch; metrics-server installed.
 */
export function eksCluster(): FakeCluster {
  const sys = ["ip-10-0-1-11.eu-west-1.compute.internal", "ip-10-0-1-12.eu-west-1.compute.internal"];
  const app = [
    "ip-10-0-2-21.eu-west-1.compute.internal",
    "ip-10-0-2-22.eu-west-1.compute.internal",
    "ip-10-0-2-23.eu-west-1.compute.internal",
    "ip-10-0-2-24.eu-west-1.compute.internal",
  ];
  const eks = (group: string, type: string) => ({
    "eks.amazonaws.com/nodegroup": group,
    "eks.amazonaws.com/capacityType": "ON_DEMAND",
    "node.kubernetes.io/instance-type": type,
    "topology.kubernetes.io/region": "eu-west-1",
  });
  const nodes = [
    ...sys.map((n) => node(n, eks("system", "m5.large"), { kubelet: "v1.31.4-eks-2d5f260", cpu: "1930m", memory: "7220184Ki" })),
    node(app[0]!, eks("apps", "m5.xlarge"), { kubelet: "v1.31.4-eks-2d5f260", cpu: "3920m", memory: "15136844Ki" }),
    node(app[1]!, eks("apps", "m5.xlarge"), { kubelet: "v1.30.8-eks-a737599", cpu: "3920m", memory: "15136844Ki" }),
    node(app[2]!, eks("apps", "m5.xlarge"), {
      kubelet: "v1.31.4-eks-2d5f260",
      cpu: "3920m",
      memory: "15136844Ki",
      cordoned: true,
    }),
    node(app[3]!, eks("apps", "m5.xlarge"), { kubelet: "v1.31.4-eks-2d5f260", cpu: "3920m", memory: "15136844Ki", ready: false }),
  ];
  const all = [...sys, ...app];
  return {
    name: "eks-prod-eu",
    gitVersion: "v1.31.4-eks-2d5f260",
    nodes,
    namespaces: [
      "default",
      "kube-system",
      "kube-public",
      "kube-node-lease",
      "amazon-cloudwatch",
      "fleet-system",
      "shop",
      "payments",
    ],
    pods: [
      ...daemonSetPods("kube-system", "aws-node", all),
      ...daemonSetPods("kube-system", "kube-proxy", all),
      ...pods("kube-system", 2, sys, { kind: "ReplicaSet", name: "coredns-789f8477df" }),
      ...pods("kube-system", 1, sys, { kind: "ReplicaSet", name: "metrics-server-5c8c7d8b5" }),
      ...daemonSetPods("amazon-cloudwatch", "fluent-bit", all),
      ...pods("fleet-system", 1, sys, { kind: "ReplicaSet", name: "fleet-agent-6d9f" }),
      ...pods("shop", 12, app, { kind: "ReplicaSet", name: "storefront-7b9c" }),
      ...pods("payments", 5, app, { kind: "StatefulSet", name: "ledger" }),
      ...pods("shop", 3, app, { kind: "Job", name: "nightly-report" }, "Succeeded"),
      ...pods("payments", 1, app, { kind: "Job", name: "migrate" }, "Failed"),
    ],
    daemonSets: [
      { metadata: { name: "aws-node", namespace: "kube-system" }, status: { desiredNumberScheduled: 6, numberReady: 6 } },
      { metadata: { name: "kube-proxy", namespace: "kube-system" }, status: { desiredNumberScheduled: 6, numberReady: 6 } },
      {
        metadata: { name: "fluent-bit", namespace: "amazon-cloudwatch", labels: { "k8s-app": "fluent-bit" } },
        status: { desiredNumberScheduled: 6, numberReady: 5 },
      },
    ],
    metrics: true,
    clusterInfoServer: "https://4A1B2C3D4E5F.gr7.eu-west-1.eks.amazonaws.com",
  };
}

/** GKE, 1.30: two node pools; logging agent DaemonSet named by app.kubernetes.io/name; no metrics APIService. */
export function gkeCluster(): FakeCluster {
  const def = [
    "gke-prod-us-default-pool-1a2b3c4d-x7k2",
    "gke-prod-us-default-pool-1a2b3c4d-q9m4",
    "gke-prod-us-default-pool-1a2b3c4d-z3n8",
  ];
  const hi = ["gke-prod-us-highmem-5e6f7a8b-p2l1", "gke-prod-us-highmem-5e6f7a8b-r8t6"];
  const gke = (pool: string, type: string) => ({
    "cloud.google.com/gke-nodepool": pool,
    "cloud.google.com/machine-family": type.split("-")[0]!,
    "node.kubernetes.io/instance-type": type,
  });
  return {
    name: "gke-prod-us",
    gitVersion: "v1.30.5-gke.1014001",
    nodes: [
      ...def.map((n) =>
        node(n, gke("default-pool", "e2-standard-4"), { kubelet: "v1.30.5-gke.1014001", cpu: "3920m", memory: "13695392Ki" }),
      ),
      ...hi.map((n) =>
        node(n, gke("highmem", "n2-highmem-8"), { kubelet: "v1.30.5-gke.1014001", cpu: "7910m", memory: "60098852Ki" }),
      ),
    ],
    namespaces: [
      "default",
      "kube-system",
      "kube-public",
      "kube-node-lease",
      "gke-managed-system",
      "fleet-system",
      "search",
      "observability",
    ],
    pods: [
      ...daemonSetPods("kube-system", "fluentbit-gke", [...def, ...hi]),
      ...daemonSetPods("kube-system", "gke-metrics-agent", [...def, ...hi]),
      ...pods("fleet-system", 1, def, { kind: "ReplicaSet", name: "fleet-agent-6d9f" }),
      ...pods("search", 20, hi, { kind: "StatefulSet", name: "elastic" }),
      ...pods("observability", 4, def, { kind: "ReplicaSet", name: "grafana-55d" }),
    ],
    daemonSets: [
      {
        metadata: { name: "fluentbit-gke", namespace: "kube-system", labels: { "app.kubernetes.io/name": "fluentbit" } },
        status: { desiredNumberScheduled: 5, numberReady: 5 },
      },
      {
        metadata: { name: "gke-metrics-agent", namespace: "kube-system" },
        status: { desiredNumberScheduled: 5, numberReady: 5 },
      },
    ],
    metrics: false,
    clusterInfoServer: null,
  };
}

/** AKS, 1.29: the system pool labelled `kubernetes.azure.com/agentpool` and an old-style `agentpool` one; no log collector. */
export function aksCluster(): FakeCluster {
  const sys = ["aks-system-12345678-vmss000000", "aks-system-12345678-vmss000001"];
  const user = ["aks-user-87654321-vmss000000"];
  return {
    name: "aks-dev-we",
    gitVersion: "v1.29.9",
    nodes: [
      ...sys.map((n) =>
        node(
          n,
          {
            "kubernetes.azure.com/agentpool": "system",
            agentpool: "system",
            "node.kubernetes.io/instance-type": "Standard_D4s_v5",
          },
          { kubelet: "v1.29.9", cpu: "3860m", memory: "12880972Ki" },
        ),
      ),
      ...user.map((n) =>
        node(
          n,
          { agentpool: "user", "node.kubernetes.io/instance-type": "Standard_E8s_v5" },
          { kubelet: "v1.29.9", cpu: "7820m", memory: "57Gi" },
        ),
      ),
    ],
    namespaces: ["default", "kube-system", "kube-public", "kube-node-lease", "fleet-system", "web"],
    pods: [
      ...daemonSetPods("kube-system", "azure-cns", [...sys, ...user]),
      ...pods("fleet-system", 1, sys, { kind: "ReplicaSet", name: "fleet-agent-6d9f" }),
      ...pods("web", 7, user, { kind: "ReplicaSet", name: "frontend-6c7" }),
      // A bare pod (no owner) outside system namespaces is a user pod too.
      ...pods("default", 1, user),
    ],
    daemonSets: [
      { metadata: { name: "azure-cns", namespace: "kube-system" }, status: { desiredNumberScheduled: 3, numberReady: 3 } },
    ],
    metrics: true,
    clusterInfoServer: "https://aks-dev-we-dns-1a2b3c.hcp.westeurope.azmk8s.io:443",
  };
}

/**
 * What a real API server sends besides the fields the agent reads, about 20 KB a node: the
 * managedFields of kubelet, the node controller and the cloud controller, annotations, and the
 * images the node has pulled (digests and tags).
 */
function realisticBulk(n: FakeNode, i: number): FakeNode {
  const hex = (k: number) => (BigInt(i) * 2654435761n + BigInt(k) * 40503n).toString(16).padStart(12, "0").repeat(6).slice(0, 64);
  const fieldsOf = (keys: string[]) => Object.fromEntries(keys.map((k) => [`f:${k}`, {}]));
  const time = "2026-11-30T08:14:22Z";
  const managed = (manager: string, subresource: string | undefined, keys: string[]) => ({
    manager,
    operation: "Update",
    apiVersion: "v1",
    time,
    fieldsType: "FieldsV1",
    fieldsV1: { "f:metadata": { "f:labels": fieldsOf(Object.keys(n.metadata.labels)) }, "f:status": fieldsOf(keys) },
    ...(subresource ? { subresource } : {}),
  });
  const conditionKeys = ["lastHeartbeatTime", "lastTransitionTime", "message", "reason", "status", "type"];
  n.metadata.annotations = {
    "alpha.kubernetes.io/provided-node-ip": `10.${(i >> 8) & 255}.${i & 255}.1`,
    "node.alpha.kubernetes.io/ttl": "0",
    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
    "karpenter.k8s.aws/ec2nodeclass-hash": hex(1).slice(0, 20),
  };
  n.metadata.managedFields = [
    managed("kubelet", "status", ["allocatable", "capacity", "conditions", "daemonEndpoints", "images", "nodeInfo"]),
    managed("karpenter", undefined, ["taints", "providerID"]),
    managed("aws-cloud-controller-manager", "status", ["addresses", ...conditionKeys]),
    managed("kube-controller-manager", undefined, ["podCIDR", "podCIDRs", "volumesAttached", "volumesInUse"]),
  ];
  n.status.conditions = n.status.conditions.map((c) => ({
    ...c,
    message: `kubelet has sufficient ${c.type === "Ready" ? "readiness, posting ready status" : "resources"}`,
    lastHeartbeatTime: time,
  }));
  n.status.images = Array.from({ length: 66 }, (_, k) => ({
    names: [
      `602401143452.dkr.ecr.eu-west-1.amazonaws.com/team-${k}/service-${k}@sha256:${hex(k + 7)}`,
      `602401143452.dkr.ecr.eu-west-1.amazonaws.com/team-${k}/service-${k}:v1.${k}.${i % 17}-build.${hex(k).slice(0, 8)}`,
    ],
    sizeBytes: 10_000_000 + k * 1_234_567,
  }));
  return n;
}

/**
 * A big cluster for the measurement: `nodeCount` nodes in 10 pools (each as big as a real API
 * server sends it), `podCount` pods.
 */
export function bigCluster(nodeCount: number, podCount: number): FakeCluster {
  const nodes: FakeNode[] = [];
  for (let i = 0; i < nodeCount; i++) {
    nodes.push(
      realisticBulk(
        node(
          `ip-10-${(i >> 8) & 255}-${i & 255}-1.ec2.internal`,
          { "karpenter.sh/nodepool": `pool-${i % 10}`, "node.kubernetes.io/instance-type": "m6i.4xlarge" },
          {
            kubelet: "v1.31.2-eks-7f9249a",
            cpu: "15890m",
            memory: "62153416Ki",
          },
        ),
        i,
      ),
    );
  }
  const names = nodes.map((n) => n.metadata.name);
  const perNs = 1000;
  const all: FakePod[] = [];
  for (let start = 0; start < podCount; start += perNs) {
    all.push(
      ...pods(`team-${start / perNs}`, Math.min(perNs, podCount - start), names, {
        kind: "ReplicaSet",
        name: `svc-${start / perNs}`,
      }),
    );
  }
  return {
    name: "big",
    gitVersion: "v1.31.2-eks-7f9249a",
    nodes,
    namespaces: ["default", "kube-system", ...Array.from({ length: Math.ceil(podCount / perNs) }, (_, i) => `team-${i}`)],
    pods: all,
    daemonSets: [],
    metrics: true,
    clusterInfoServer: null,
  };
}
