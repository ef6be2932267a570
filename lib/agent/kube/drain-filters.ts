import { isTerminal, type KubeMeta } from "./facts-from-cluster";

// Which pods a node-pool drain evicts, as `kubectl drain` decides (k8s.io/kubectl/pkg/drain,
// filters.go): finished pods, DaemonSet pods (their controller would put them straight back) and
// static pods' mirrors (the kubelet owns them; evicting the mirror stops nothing) are left alone;
// a pod that no controller recreates, or that keeps data in an emptyDir volume, is lost for good
// when evicted, so it blocks the drain unless the directive says so (`force`,
// `deleteEmptyDirData`, as kubectl's flags of those names).

export interface DrainOptions {
  /** Evict pods no controller recreates (they are gone for good). */
  force: boolean;
  /** Evict pods with emptyDir volumes (their data is deleted). */
  deleteEmptyDirData: boolean;
}

/** A pod as a drain reads it: its metadata, its volumes (for emptyDir) and phase. */
export interface DrainPod {
  metadata: Omit<KubeMeta, "ownerReferences"> & {
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  };
  spec?: { volumes?: { name: string; emptyDir?: unknown }[] };
  status?: { phase?: string };
}

/** The annotation the kubelet puts on the API's copy of a static pod. */
export const MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";

export type DrainVerdict =
  { action: "skip"; why: "finished" | "DaemonSet" | "mirror" } | { action: "evict" } | { action: "blocked"; why: string };

/** What a drain does with `pod`; `own`: the agent's pod, whose emptyDir holds nothing (its state is in a Secret). */
export function drainVerdict(pod: DrainPod, options: DrainOptions, own = false): DrainVerdict {
  if (isTerminal(pod)) return { action: "skip", why: "finished" };
  const owners = pod.metadata.ownerReferences ?? [];
  const controller = owners.find((o) => o.controller);
  if (controller?.kind === "DaemonSet") return { action: "skip", why: "DaemonSet" };
  if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined || owners.some((o) => o.kind === "Node"))
    return { action: "skip", why: "mirror" };
  const why: string[] = [];
  if (!controller && !options.force) why.push("no controller would recreate it (force)");
  if (!own && !options.deleteEmptyDirData && (pod.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined))
    why.push("its emptyDir data would be deleted (deleteEmptyDirData)");
  return why.length ? { action: "blocked", why: why.join(" and ") } : { action: "evict" };
}

/** The directive's options as the payload gives them: off unless `true`. */
export function drainOptionsOf(payload: { force?: unknown; deleteEmptyDirData?: unknown }): DrainOptions {
  return { force: payload.force === true, deleteEmptyDirData: payload.deleteEmptyDirData === true };
}
