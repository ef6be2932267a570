import type { Labels } from "./labels";
import { conditionHolds, clusterStatus, healthStatus, type StatusFacts } from "./status";

// A cluster as a SIG-Multicluster ClusterProfile (kubernetes-sigs/cluster-inventory-api,
// apis/v1alpha1/clusterprofile_types.go), the object Argo CD, Kueue MultiKueue and Headlamp read.
// Pure: the admin API's list and the hub exporter both map through clusterProfile().
//
// What goes out is public inventory metadata only: name, labels, versions, phase, health and the
// API server URL. No certificates, tokens or CA fingerprints (a fingerprint is not secret, but
// nothing reads it from a profile, and credentialProviders are not ours to offer). No heartbeat
// times either: a profile changes when the cluster does, not on every heartbeat.

export const CLUSTER_PROFILE_API_VERSION = "multicluster.x-k8s.io/v1alpha1";
export const CLUSTER_PROFILE_GROUP = "multicluster.x-k8s.io";
export const CLUSTER_PROFILE_VERSION = "v1alpha1";
export const CLUSTER_PROFILE_PLURAL = "clusterprofiles";
/** spec.clusterManager.name and the value of the cluster-manager label. */
export const CLUSTER_MANAGER = "fleet-registry";
/** The standard's label naming who manages a profile (LabelClusterManagerKey). */
export const CLUSTER_MANAGER_LABEL = "x-k8s.io/cluster-manager";
/** Our own properties and annotations; a cluster label under this prefix is not copied. */
export const FLEET_PREFIX = "fleet-registry.io/";
export const CLUSTER_ID_ANNOTATION = `${FLEET_PREFIX}cluster-id`;
/** The largest hub kubeconfig the exporter takes (lib/domain/kubeconfig.ts checks it). */
export const MAX_KUBECONFIG_BYTES = 256 * 1024;

export type ConditionStatus = "True" | "False" | "Unknown";

/** metav1.Condition; observedGeneration is set by the exporter from the hub's generation. */
export type ProfileCondition = {
  type: "ControlPlaneHealthy" | "Joined";
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
};

export type ProfileProperty = { name: string; value: string };

export type ClusterProfile = {
  apiVersion: typeof CLUSTER_PROFILE_API_VERSION;
  kind: "ClusterProfile";
  metadata: { name: string; namespace?: string; labels: Labels; annotations: Record<string, string> };
  spec: { displayName: string; clusterManager: { name: typeof CLUSTER_MANAGER } };
  status: { conditions: ProfileCondition[]; version: { kubernetes?: string }; properties: ProfileProperty[] };
};

/** The stored facts of one cluster a profile is made from. */
export type ProfileFacts = StatusFacts & {
  id: string;
  name: string;
  labels: Labels;
  createdAt: Date;
  registeredAt: Date | null;
  phaseChangedAt: Date;
  /** when the sweeper last recorded a health transition */
  statusChangedAt: Date;
  kubernetesVersion: string | null;
  agentVersion: string | null;
  apiServerUrl: string | null;
  nodeCount: number | null;
};

export type ProfileContext = { now: Date; notReadyThresholdSeconds: number; namespace?: string };

const MAX_PROPERTY_VALUE = 1024;

const conditionOf =
  (type: ProfileCondition["type"]) =>
  (status: ConditionStatus, reason: string, message: string, since: Date): ProfileCondition => ({
    type,
    status,
    reason,
    message,
    lastTransitionTime: since.toISOString(),
  });

/**
 * ControlPlaneHealthy from heartbeat health: Ready is True, an agent reporting its API server down
 * is False, and a cluster we cannot hear (no heartbeat yet, or none within the NotReady threshold)
 * is Unknown: silence says nothing about its control plane.
 */
export function controlPlaneHealthy(f: ProfileFacts, ctx: ProfileContext): ProfileCondition {
  const threshold = ctx.notReadyThresholdSeconds;
  const health = healthStatus(f, ctx.now, threshold);
  const condition = conditionOf("ControlPlaneHealthy");
  if (health === "Pending" || !f.lastHeartbeatAt)
    return condition("Unknown", "NoHeartbeatYet", "The agent has not sent a heartbeat yet.", f.registeredAt ?? f.createdAt);
  if (!conditionHolds({ fact: "heartbeat", is: "fresh" }, f, ctx.now, threshold)) {
    // It went stale exactly when the threshold passed after the last heartbeat.
    const since = new Date(f.lastHeartbeatAt.getTime() + threshold * 1000);
    return condition("Unknown", "HeartbeatStale", `No heartbeat for more than ${threshold}s.`, since);
  }
  if (health === "NotReady")
    return condition("False", "APIServerDown", "The agent reports the API server down.", f.statusChangedAt);
  if (f.apiServerHealth === "degraded")
    return condition("True", "APIServerDegraded", "The agent reports the API server up but degraded.", f.statusChangedAt);
  return condition("True", "AgentReportsHealthy", "Heartbeats arrive and the API server is up.", f.statusChangedAt);
}

/** Joined: registered and not on its way out. */
export function joined(f: ProfileFacts): ProfileCondition {
  const condition = conditionOf("Joined");
  if (!f.registeredAt || f.phase === "Provisioning")
    return condition("False", "AwaitingRegistration", "Provisioned; no agent has registered it yet.", f.createdAt);
  if (f.phase === "Deregistration")
    return condition("False", "Deregistering", "The cluster is being deregistered.", f.phaseChangedAt);
  return condition("True", "Registered", "An agent registered the cluster.", f.registeredAt);
}

/**
 * status.properties: each cluster label under its own key, then our facts under fleet-registry.io/,
 * sorted by name so an unchanged cluster maps to the same list. Empty values are left out (the
 * standard requires 1-1024 characters).
 */
export function profileProperties(f: ProfileFacts, ctx: ProfileContext): ProfileProperty[] {
  const facts: Record<string, string | number | null> = {
    phase: f.phase,
    status: clusterStatus(f, ctx.now, ctx.notReadyThresholdSeconds),
    "agent-version": f.agentVersion,
    "api-server-url": f.apiServerUrl,
    "node-count": f.nodeCount,
  };
  const properties: ProfileProperty[] = [];
  for (const [key, value] of Object.entries(f.labels)) {
    if (!key.startsWith(FLEET_PREFIX) && key !== CLUSTER_MANAGER_LABEL) properties.push({ name: key, value });
  }
  for (const [key, value] of Object.entries(facts)) {
    if (value !== null) properties.push({ name: `${FLEET_PREFIX}${key}`, value: String(value) });
  }
  return properties
    .filter((p) => p.value.length > 0 && p.value.length <= MAX_PROPERTY_VALUE)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** metadata.labels: the cluster's labels (already Kubernetes label syntax) and the cluster-manager label. */
function profileLabels(labels: Labels): Labels {
  const out: Labels = {};
  for (const key of Object.keys(labels).sort()) {
    if (key !== CLUSTER_MANAGER_LABEL) out[key] = labels[key]!;
  }
  out[CLUSTER_MANAGER_LABEL] = CLUSTER_MANAGER;
  return out;
}

/** One cluster as a ClusterProfile. Cluster names are DNS-1123 labels, so they are valid object names. */
export function clusterProfile(f: ProfileFacts, ctx: ProfileContext): ClusterProfile {
  return {
    apiVersion: CLUSTER_PROFILE_API_VERSION,
    kind: "ClusterProfile",
    metadata: {
      name: f.name,
      ...(ctx.namespace ? { namespace: ctx.namespace } : {}),
      labels: profileLabels(f.labels),
      annotations: { [CLUSTER_ID_ANNOTATION]: f.id },
    },
    spec: { displayName: f.name, clusterManager: { name: CLUSTER_MANAGER } },
    status: {
      conditions: [controlPlaneHealthy(f, ctx), joined(f)],
      version: f.kubernetesVersion ? { kubernetes: f.kubernetesVersion } : {},
      properties: profileProperties(f, ctx),
    },
  };
}
