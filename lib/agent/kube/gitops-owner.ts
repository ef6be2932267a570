// Whether a GitOps controller owns the agent's Deployment. Such a controller puts back whatever the
// agent patches (the image, the args), so the two would fight forever: the agent leaves its
// upgrade to the repository instead, and says which image to put there.

export type GitOpsManager = "argocd" | "flux";

export const GITOPS_MANAGER_NAMES: Record<GitOpsManager, string> = { argocd: "Argo CD", flux: "Flux" };

type ObjectMeta = {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: { manager?: string }[];
};

/** Field managers of the controllers that apply from a repository (kubectl's manager is not one). */
const MANAGERS: [RegExp, GitOpsManager][] = [
  [/^argocd(-application)?-controller$/, "argocd"],
  [/^(kustomize|helm)-controller$/, "flux"],
];

/**
 * The GitOps controller that manages this object, with the mark that says so, or null. Argo CD
 * tracks by annotation (argocd.argoproj.io/tracking-id) or by the app.kubernetes.io/instance
 * label set to its Application's name: the manifest sets that label to the cluster's name, so
 * another value there is Argo CD's. Flux labels what it applies with its Kustomization or
 * HelmRelease. Server-side apply names the controller in managedFields.
 */
export function gitOpsOwner(
  meta: ObjectMeta | undefined,
  clusterName: string | null,
): { manager: GitOpsManager; mark: string } | null {
  const labels = meta?.labels ?? {};
  const annotations = meta?.annotations ?? {};
  if (annotations["argocd.argoproj.io/tracking-id"])
    return { manager: "argocd", mark: "annotation argocd.argoproj.io/tracking-id" };
  for (const key of Object.keys(labels)) {
    if (key.startsWith("kustomize.toolkit.fluxcd.io/") || key.startsWith("helm.toolkit.fluxcd.io/"))
      return { manager: "flux", mark: `label ${key}` };
  }
  for (const field of meta?.managedFields ?? []) {
    for (const [pattern, manager] of MANAGERS)
      if (field.manager && pattern.test(field.manager)) return { manager, mark: `field manager ${field.manager}` };
  }
  const instance = labels["app.kubernetes.io/instance"];
  if (instance && clusterName && instance !== clusterName)
    return { manager: "argocd", mark: `label app.kubernetes.io/instance=${instance}` };
  return null;
}
