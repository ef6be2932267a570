// Cluster API auto-import as pure rules: what a CAPI Cluster object says (in either served API
// version), the fleet name and labels it gets, and the one next step of its import. The server
// (lib/server/cluster-api/) reads the facts, asks decideCapiStep, and carries out what it says.
import { DNS_LABEL, labelKeyProblem, labelValueProblem, missingRequiredLabels, type Labels } from "./labels";

export const CAPI_GROUP = "cluster.x-k8s.io";
/** Preferred first: v1beta2 where the management cluster serves it (CAPI 1.11+), else v1beta1. */
export const CAPI_VERSIONS = ["v1beta2", "v1beta1"] as const;
export type CapiVersion = (typeof CAPI_VERSIONS)[number];

export const DEFAULT_OPT_IN_LABEL = "fleet-registry/auto-register";
export const OPT_IN_VALUE = "true";
/** Set on a CAPI Cluster removed from the registry: it is not imported again until an admin clears it. */
export const DO_NOT_IMPORT_ANNOTATION = "fleet-registry/do-not-import";
/** The field manager of everything the server applies (the agent's objects, the mark above). */
export const CAPI_FIELD_MANAGER = "fleet-registry-capi";
/** The Secret CAPI writes for each cluster, and the key holding its kubeconfig. */
export const kubeconfigSecretName = (cluster: string) => `${cluster}-kubeconfig`;
export const KUBECONFIG_SECRET_KEY = "value";
/** After the manifest is applied, how long the agent has to register before it is flagged. */
export const AGENT_SILENT_AFTER_MS = 5 * 60_000;
/** The audit and phase-change reason of a deregistration that Cluster API's deletion started. */
export const DELETED_BY_CAPI = "deleted by Cluster API";

/** The conditions the console shows, in order (v1beta2 names ControlPlaneReady ControlPlaneAvailable). */
export const SHOWN_CONDITIONS = ["InfrastructureReady", "ControlPlaneInitialized", "ControlPlaneReady"] as const;

export type CapiCondition = { type: string; status: "True" | "False" | "Unknown"; reason?: string; message?: string };

/** What the import needs of one CAPI Cluster, whichever version it was read in. */
export type CapiClusterFacts = {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  labels: Labels;
  annotations: Record<string, string>;
  createdAt: string | null;
  deletingSince: string | null;
  /** Pending | Provisioning | Provisioned | Deleting | Failed | Unknown */
  phase: string | null;
  conditions: CapiCondition[];
  controlPlaneInitialized: boolean;
  infrastructureProvider: string | null;
  kubernetesVersion: string | null;
  topologyClass: string | null;
};

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === "string" && v ? v : null);
const strings = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(v)).filter((e): e is [string, string] => typeof e[1] === "string"));

function conditionsOf(v: unknown): CapiCondition[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((c) => {
    const o = obj(c);
    const type = str(o.type);
    const status = o.status === "True" || o.status === "False" ? o.status : "Unknown";
    return type ? [{ type, status, reason: str(o.reason) ?? undefined, message: str(o.message) ?? undefined }] : [];
  });
}

/**
 * Reads a Cluster object of cluster.x-k8s.io/v1beta1 or v1beta2 (status.initialization and
 * metav1 conditions, spec.topology.classRef, an infrastructureRef with apiGroup). Null when it is
 * not an object with a namespace, name and uid.
 */
export function readCapiCluster(value: unknown): CapiClusterFacts | null {
  const o = obj(value);
  const meta = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const namespace = str(meta.namespace);
  const name = str(meta.name);
  const uid = str(meta.uid);
  if (!namespace || !name || !uid) return null;
  const conditions = conditionsOf(status.conditions);
  const condition = (type: string) => conditions.find((c) => c.type === type)?.status === "True";
  const init = obj(status.initialization);
  // v1beta1 also carries status.controlPlaneReady, set once the control plane answers: initialised.
  const controlPlaneInitialized =
    init.controlPlaneInitialized === true || condition("ControlPlaneInitialized") || status.controlPlaneReady === true;
  const topology = obj(spec.topology);
  const infra = obj(spec.infrastructureRef);
  // The shown set keeps one name per meaning: v1beta2's ControlPlaneAvailable reads as ControlPlaneReady.
  const shown = conditions.map((c) => (c.type === "ControlPlaneAvailable" ? { ...c, type: "ControlPlaneReady" } : c));
  if (init.infrastructureProvisioned === true && !shown.some((c) => c.type === "InfrastructureReady"))
    shown.push({ type: "InfrastructureReady", status: "True" });
  if (init.controlPlaneInitialized === true && !shown.some((c) => c.type === "ControlPlaneInitialized"))
    shown.push({ type: "ControlPlaneInitialized", status: "True" });
  return {
    namespace,
    name,
    uid,
    resourceVersion: str(meta.resourceVersion) ?? "",
    labels: strings(meta.labels),
    annotations: strings(meta.annotations),
    createdAt: str(meta.creationTimestamp),
    deletingSince: str(meta.deletionTimestamp),
    phase: str(status.phase),
    conditions: SHOWN_CONDITIONS.flatMap((type) => shown.filter((c) => c.type === type).slice(0, 1)),
    controlPlaneInitialized,
    infrastructureProvider: str(infra.kind),
    kubernetesVersion: str(topology.version),
    topologyClass: str(obj(topology.classRef).name) ?? str(topology.class),
  };
}

/** Whether the Cluster, or its Namespace, carries the source's opt-in label. */
export function optedIn(labels: Labels, namespaceLabels: Labels | undefined, optInLabel: string): boolean {
  return labels[optInLabel] === OPT_IN_VALUE || namespaceLabels?.[optInLabel] === OPT_IN_VALUE;
}

/**
 * The fleet's name for a CAPI Cluster: `<source>-<namespace>-<name>`, unique across sources and
 * namespaces. Past 63 characters (a DNS-1123 label) it is cut and given a hash of the whole, so two
 * long names never meet.
 */
export function fleetClusterName(source: string, namespace: string, name: string): string {
  const full = `${source}-${namespace}-${name}`;
  if (full.length <= 63) return full;
  const hash = fnv1a(full).toString(16).padStart(8, "0");
  return `${full.slice(0, 54).replace(/-+$/, "")}-${hash}`;
}

/** FNV-1a, 32 bits: a short, stable tag (not a secret); plain code, so the console can import this file. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A mapping rule: the value of the CAPI label `from` becomes the fleet label `to`. */
export type LabelMapping = { from: string; to: string };

export type MappedLabels = { labels: Labels; problem: string | null };

/**
 * The fleet labels of an imported cluster: the source's fixed labels, then each mapping rule that
 * finds its CAPI label (values the fleet cannot hold are refused by name). `problem` says why the
 * import would be refused, checked before anything is created: a refused value, or a required
 * label still missing.
 */
export function mapLabels(
  capiLabels: Labels,
  rules: readonly LabelMapping[],
  fixed: Labels,
  required: readonly string[],
): MappedLabels {
  const labels: Labels = { ...fixed };
  for (const rule of rules) {
    const value = capiLabels[rule.from];
    if (value === undefined) continue;
    const bad = labelValueProblem(value);
    if (bad) return { labels, problem: `the CAPI label ${rule.from}=${value} cannot be the fleet label ${rule.to}: ${bad}` };
    labels[rule.to] = value;
  }
  const missing = missingRequiredLabels(labels, required);
  if (missing.length)
    return {
      labels,
      problem: `the fleet requires the label${missing.length > 1 ? "s" : ""} ${missing.join(", ")}: add ${missing.length > 1 ? "them" : "it"} to the source's fixed labels or map ${missing.length > 1 ? "them" : "it"} from a CAPI label`,
    };
  return { labels, problem: null };
}

/** Why a mapping rule or fixed label is malformed, or null. */
export function mappingProblem(rule: LabelMapping): string | null {
  return labelKeyProblem(rule.from) ?? labelKeyProblem(rule.to);
}

export const isSourceName = (name: string) => DNS_LABEL.test(name) && name.length <= 20;

// ---------------------------------------------------------------------------------------------
// The import's steps

/**
 * Where one CAPI Cluster's import stands (CapiCluster.step):
 * - `not-opted-in`: neither it nor its namespace carries the opt-in label.
 * - `excluded`: removed from the registry once (the do-not-import mark); not imported again.
 * - `labels-refused`: its labels would not satisfy the fleet's required set (the reason is shown).
 * - `provisioning`: pre-created in the fleet (phase Provisioning); its control plane is not initialised yet.
 * - `joining`: the control plane answers; the agent's manifest is being applied (failures retry, backing off).
 * - `applied`: the manifest is applied; the agent has yet to register.
 * - `joined`: its agent registered.
 * - `deleting`: Cluster API is deleting it; its fleet record is being deregistered.
 */
export const CAPI_STEPS = [
  "not-opted-in",
  "excluded",
  "labels-refused",
  "provisioning",
  "joining",
  "applied",
  "joined",
  "deleting",
] as const;
export type CapiStep = (typeof CAPI_STEPS)[number];

export type StepFacts = {
  /** The CAPI Cluster is no longer on the management cluster (a DELETED event, or a relist without it). */
  gone: boolean;
  deleting: boolean;
  optedIn: boolean;
  /** the DB's mark or the annotation */
  excluded: boolean;
  controlPlaneInitialized: boolean;
  labelProblem: string | null;
  /** The fleet's record, when one is linked. */
  fleet: { phase: string; registered: boolean } | null;
  /** When the manifest was applied (null: not yet). */
  appliedAt: Date | null;
};

/**
 * What to do next. `remove`: the CAPI Cluster is gone, so is the fleet's record (and the row).
 * `deregister`: start the deregistration Cluster API's deletion calls for. `precreate`: add the
 * Provisioning record. `join`: apply the agent's manifest. `forget`: drop the row (gone, nothing
 * linked). Otherwise nothing but the step to show.
 */
export type StepAction = "remove" | "deregister" | "precreate" | "join" | "forget" | null;

export function decideCapiStep(f: StepFacts): { step: CapiStep; action: StepAction } {
  if (f.gone) return { step: "deleting", action: f.fleet ? "remove" : "forget" };
  if (f.deleting) {
    return { step: "deleting", action: f.fleet && f.fleet.phase !== "Deregistration" ? "deregister" : null };
  }
  if (!f.fleet) {
    if (f.excluded) return { step: "excluded", action: null };
    if (!f.optedIn) return { step: "not-opted-in", action: null };
    if (f.labelProblem) return { step: "labels-refused", action: null };
    return { step: "provisioning", action: "precreate" };
  }
  if (f.fleet.registered) return { step: "joined", action: null };
  if (f.appliedAt) return { step: "applied", action: null };
  if (!f.controlPlaneInitialized) return { step: "provisioning", action: null };
  return { step: "joining", action: "join" };
}

/** The wait before retrying a failed join: 10 s doubling to 5 min. */
export function retryDelayMs(attempts: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 5 * 60_000);
}

/** What the step is waiting for, in words for the console; `detail` is the last failure, if any. */
export function describeStep(step: CapiStep, optInLabel: string): string {
  switch (step) {
    case "not-opted-in":
      return `Not opted in: label the Cluster or its namespace ${optInLabel}=${OPT_IN_VALUE}.`;
    case "excluded":
      return "Removed from the registry: not imported again until an admin clears the mark.";
    case "labels-refused":
      return "Not imported: its labels would not satisfy the fleet's required labels.";
    case "provisioning":
      return "Control plane not initialised yet.";
    case "joining":
      return "Applying the agent to the workload cluster.";
    case "applied":
      return "Agent applied; waiting for it to register.";
    case "joined":
      return "Joined: its agent registered.";
    case "deleting":
      return "Deleted by Cluster API: deregistering (drain skipped).";
  }
}
