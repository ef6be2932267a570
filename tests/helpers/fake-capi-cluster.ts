// Cluster API Clusters (cluster.x-k8s.io) for the loopback Kubernetes API: one neutral form the
// tests write, rendered in the shape each served version has. The shapes follow
// kubernetes-sigs/cluster-api api/core/v1beta1/cluster_types.go, condition_types.go and
// condition_consts.go (v1beta1: CAPI's own Conditions with severity, infrastructureReady and
// controlPlaneReady booleans, corev1.ObjectReference refs, topology.class) and
// api/core/v1beta2/cluster_types.go, common_types.go and condition_consts.go (v1beta2:
// metav1.Condition, status.initialization, ContractVersionedObjectReference refs with apiGroup,
// topology.classRef). Each version also carries the other's conditions where CAPI puts them
// during the transition (v1beta1 status.v1beta2.conditions, v1beta2
// status.deprecated.v1beta1.conditions).

export const CAPI_GROUP = "cluster.x-k8s.io";
export const CAPI_VERSIONS = ["v1beta2", "v1beta1"] as const;
export type CapiVersion = (typeof CAPI_VERSIONS)[number];
export type CapiPhase = "Pending" | "Provisioning" | "Provisioned" | "Deleting" | "Failed";

/**
 * The facts a Cluster's conditions report, by their v1beta1 names. v1beta2 renders ControlPlaneReady
 * as ControlPlaneAvailable and Ready as Available.
 */
export type CapiConditionType = "InfrastructureReady" | "ControlPlaneInitialized" | "ControlPlaneReady" | "Ready";
export const CAPI_CONDITION_TYPES: CapiConditionType[] = [
  "InfrastructureReady",
  "ControlPlaneInitialized",
  "ControlPlaneReady",
  "Ready",
];

export type CapiCondition = {
  status: "True" | "False" | "Unknown";
  /** Default: the reason CAPI's controllers write for that condition and status. */
  reason?: string;
  message?: string;
  /** v1beta1 only; default Info when not True (CAPI's "waiting" reasons are Info). */
  severity?: "Error" | "Warning" | "Info";
  lastTransitionTime?: string;
};

export interface CapiClusterInput {
  namespace: string;
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Default Pending. */
  phase?: CapiPhase;
  /**
   * Conditions by type, true/false for the default reason; unset ones follow the phase:
   * Provisioning has the infrastructure ready, Provisioned everything, other phases nothing.
   */
  conditions?: Partial<Record<CapiConditionType, CapiCondition | boolean>>;
  /** The infrastructure cluster's kind, default DockerCluster. */
  infrastructureKind?: string;
  /** Default infrastructure.cluster.x-k8s.io/v1beta1. */
  infrastructureApiVersion?: string;
  /** The Kubernetes version of the topology (rendered with topologyClass only, as CAPI's API has it). */
  kubernetesVersion?: string;
  /** The ClusterClass of a managed topology. */
  topologyClass?: string;
  creationTimestamp?: string;
}

/** The keys of a map field (labels, annotations) each field manager applied, with the value it applied. */
export type FieldOwners = Record<string, { labels: Record<string, string>; annotations: Record<string, string> }>;

/** A Cluster as the fake stores it, whatever version it is read at. */
export interface CapiClusterState {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    generation: number;
    creationTimestamp: string;
    deletionTimestamp?: string;
    finalizers: string[];
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  phase: CapiPhase;
  conditions: Record<CapiConditionType, Required<Omit<CapiCondition, "severity">> & Pick<CapiCondition, "severity">>;
  infrastructure: { apiVersion: string; kind: string };
  kubernetesVersion?: string;
  topologyClass?: string;
  /** Server-side apply's ownership of labels and annotations, by field manager (Apply operations only). */
  owners: FieldOwners;
}

const DEFAULT_TRUE: Record<CapiPhase, CapiConditionType[]> = {
  Pending: [],
  Provisioning: ["InfrastructureReady"],
  Provisioned: CAPI_CONDITION_TYPES,
  Deleting: [],
  Failed: [],
};

/** v1beta1 reasons for a condition that is not True (condition_consts.go). */
const V1BETA1_WAITING: Record<CapiConditionType, string> = {
  InfrastructureReady: "WaitingForInfrastructure",
  ControlPlaneInitialized: "WaitingForControlPlaneProviderInitialized",
  ControlPlaneReady: "WaitingForControlPlane",
  Ready: "WaitingForInfrastructure",
};

/** v1beta2 types and reasons (v1beta2 cluster_types.go, condition_consts.go). */
const V1BETA2: Record<CapiConditionType, { type: string; yes: string; no: string }> = {
  InfrastructureReady: { type: "InfrastructureReady", yes: "Ready", no: "NotReady" },
  ControlPlaneInitialized: { type: "ControlPlaneInitialized", yes: "Initialized", no: "NotInitialized" },
  ControlPlaneReady: { type: "ControlPlaneAvailable", yes: "Available", no: "NotAvailable" },
  Ready: { type: "Available", yes: "Available", no: "NotAvailable" },
};

export function capiConditions(
  phase: CapiPhase,
  given: CapiClusterInput["conditions"],
  now: string,
  previous?: CapiClusterState["conditions"],
): CapiClusterState["conditions"] {
  const out = {} as CapiClusterState["conditions"];
  for (const type of CAPI_CONDITION_TYPES) {
    const g = given?.[type];
    const c: CapiCondition =
      g === undefined
        ? { status: DEFAULT_TRUE[phase].includes(type) ? "True" : "False" }
        : typeof g === "boolean"
          ? { status: g ? "True" : "False" }
          : g;
    const before = previous?.[type];
    out[type] = {
      status: c.status,
      reason: c.reason ?? "",
      message: c.message ?? "",
      lastTransitionTime: c.lastTransitionTime ?? (before && before.status === c.status ? before.lastTransitionTime : now),
      ...(c.severity ? { severity: c.severity } : {}),
    };
  }
  return out;
}

function v1beta1Conditions(s: CapiClusterState) {
  return CAPI_CONDITION_TYPES.map((type) => {
    const c = s.conditions[type];
    const waiting = c.status !== "True";
    return {
      type,
      status: c.status,
      ...(waiting
        ? { severity: c.severity ?? "Info", reason: c.reason || V1BETA1_WAITING[type] }
        : c.reason
          ? { reason: c.reason }
          : {}),
      ...(c.message ? { message: c.message } : {}),
      lastTransitionTime: c.lastTransitionTime,
    };
  });
}

function v1beta2Conditions(s: CapiClusterState) {
  return CAPI_CONDITION_TYPES.map((type) => {
    const c = s.conditions[type];
    const t = V1BETA2[type];
    return {
      type: t.type,
      status: c.status,
      observedGeneration: s.metadata.generation,
      lastTransitionTime: c.lastTransitionTime,
      reason: c.reason || (c.status === "True" ? t.yes : t.no),
      message: c.message,
    };
  });
}

const isTrue = (s: CapiClusterState, type: CapiConditionType) => s.conditions[type].status === "True";

function metadata(s: CapiClusterState) {
  const { deletionTimestamp, labels, annotations, ...rest } = s.metadata;
  return {
    ...rest,
    ...(deletionTimestamp ? { deletionTimestamp } : {}),
    ...(Object.keys(labels).length ? { labels: { ...labels } } : {}),
    ...(Object.keys(annotations).length ? { annotations: { ...annotations } } : {}),
  };
}

/** The Cluster as `version` serves it; `served` tells whether v1beta2 exists on this CAPI (then v1beta1 carries its conditions). */
export function renderCapiCluster(s: CapiClusterState, version: CapiVersion, served: readonly CapiVersion[]) {
  const { name, namespace } = s.metadata;
  const infraGroup = s.infrastructure.apiVersion.split("/")[0]!;
  if (version === "v1beta1") {
    return {
      apiVersion: `${CAPI_GROUP}/v1beta1`,
      kind: "Cluster",
      metadata: metadata(s),
      spec: {
        controlPlaneEndpoint: { host: "", port: 0 },
        controlPlaneRef: {
          apiVersion: "controlplane.cluster.x-k8s.io/v1beta1",
          kind: "KubeadmControlPlane",
          name: `${name}-control-plane`,
          namespace,
        },
        infrastructureRef: { apiVersion: s.infrastructure.apiVersion, kind: s.infrastructure.kind, name, namespace },
        ...(s.topologyClass ? { topology: { class: s.topologyClass, version: s.kubernetesVersion ?? "" } } : {}),
      },
      status: {
        phase: s.phase,
        infrastructureReady: isTrue(s, "InfrastructureReady"),
        controlPlaneReady: isTrue(s, "ControlPlaneReady"),
        conditions: v1beta1Conditions(s),
        observedGeneration: s.metadata.generation,
        ...(served.includes("v1beta2") ? { v1beta2: { conditions: v1beta2Conditions(s) } } : {}),
      },
    };
  }
  return {
    apiVersion: `${CAPI_GROUP}/v1beta2`,
    kind: "Cluster",
    metadata: metadata(s),
    spec: {
      controlPlaneRef: { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: `${name}-control-plane` },
      infrastructureRef: { apiGroup: infraGroup, kind: s.infrastructure.kind, name },
      ...(s.topologyClass ? { topology: { classRef: { name: s.topologyClass }, version: s.kubernetesVersion ?? "" } } : {}),
    },
    status: {
      phase: s.phase,
      initialization: {
        infrastructureProvisioned: isTrue(s, "InfrastructureReady"),
        controlPlaneInitialized: isTrue(s, "ControlPlaneInitialized"),
      },
      conditions: v1beta2Conditions(s),
      observedGeneration: s.metadata.generation,
      deprecated: { v1beta1: { conditions: v1beta1Conditions(s) } },
    },
  };
}

/**
 * A label selector of equality terms (`k=v`, `k==v`, `k!=v`) and existence (`k`, `!k`),
 * comma-separated; null for a term this fake does not read (set-based `in`, `notin`).
 */
export function selectorMatcher(selector: string | undefined): ((labels: Record<string, string>) => boolean) | null {
  const tests: ((l: Record<string, string>) => boolean)[] = [];
  for (const raw of (selector ?? "").split(",")) {
    const term = raw.trim();
    if (!term) continue;
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s*!=\s*([\w.-]*)$/.exec(term))) {
      const [, k, v] = m as unknown as [string, string, string];
      tests.push((l) => l[k] !== v);
    } else if ((m = /^([\w./-]+)\s*==?\s*([\w.-]*)$/.exec(term))) {
      const [, k, v] = m as unknown as [string, string, string];
      tests.push((l) => l[k] === v);
    } else if ((m = /^!([\w./-]+)$/.exec(term))) {
      const k = m[1]!;
      tests.push((l) => !(k in l));
    } else if ((m = /^([\w./-]+)$/.exec(term))) {
      const k = m[1]!;
      tests.push((l) => k in l);
    } else return null;
  }
  return (labels) => tests.every((t) => t(labels));
}

/**
 * Server-side apply of one map field (labels or annotations) by `manager`: the applied keys are
 * set and owned by it; keys it owned before and left out are removed unless another manager owns
 * them too; keys others set stay. A key another manager applied with another value is a conflict
 * unless forced (then the applier takes it over).
 */
export function applyMapField(
  current: Record<string, string>,
  field: "labels" | "annotations",
  owners: FieldOwners,
  manager: string,
  applied: Record<string, string>,
  force: boolean,
): { conflicts: string[]; apply: () => void } {
  const others = Object.entries(owners).filter(([name]) => name !== manager);
  const conflicts: string[] = [];
  for (const [k, v] of Object.entries(applied)) {
    if (current[k] === v) continue;
    for (const [name, owned] of others) if (k in owned[field]) conflicts.push(`conflict with "${name}": .metadata.${field}.${k}`);
  }
  return {
    conflicts: force ? [] : conflicts,
    apply: () => {
      const mine = (owners[manager] ??= { labels: {}, annotations: {} });
      for (const k of Object.keys(mine[field])) {
        if (k in applied) continue;
        if (!others.some(([, owned]) => k in owned[field])) delete current[k];
      }
      for (const [k, v] of Object.entries(applied)) {
        if (force && current[k] !== v) for (const [, owned] of others) delete owned[field][k];
        current[k] = v;
      }
      mine[field] = { ...applied };
    },
  };
}

/** After a change that was not an apply (an update, a merge patch): managers lose the keys whose value it changed. */
export function dropChangedOwnership(s: CapiClusterState) {
  for (const owned of Object.values(s.owners)) {
    for (const field of ["labels", "annotations"] as const)
      for (const [k, v] of Object.entries(owned[field])) if (s.metadata[field][k] !== v) delete owned[field][k];
  }
}
