import assert from "node:assert/strict";
import { test } from "node:test";
import { gitOpsOwner } from "@/lib/agent/kube/gitops-owner";

test("Argo CD and Flux are told by their marks; kubectl and the console's own labels are not GitOps", () => {
  const manager = (meta: Parameters<typeof gitOpsOwner>[0]) => gitOpsOwner(meta, "prod-eu-1")?.manager ?? null;
  assert.equal(
    manager({ annotations: { "argocd.argoproj.io/tracking-id": "fleet:apps/Deployment:fleet-system/fleet-agent" } }),
    "argocd",
  );
  assert.equal(manager({ managedFields: [{ manager: "argocd-controller" }] }), "argocd");
  assert.equal(manager({ labels: { "app.kubernetes.io/instance": "fleet-agents" } }), "argocd", "Argo CD's label tracking");
  assert.equal(
    manager({ labels: { "kustomize.toolkit.fluxcd.io/name": "agents", "kustomize.toolkit.fluxcd.io/namespace": "flux-system" } }),
    "flux",
  );
  assert.equal(manager({ labels: { "helm.toolkit.fluxcd.io/name": "fleet-agent" } }), "flux");
  assert.equal(manager({ managedFields: [{ manager: "kustomize-controller" }] }), "flux");
  // As `kubectl apply` of the console's manifest leaves it, and after the agent's own apply.
  assert.equal(
    manager({
      labels: { "app.kubernetes.io/instance": "prod-eu-1", "app.kubernetes.io/name": "fleet-agent" },
      managedFields: [
        { manager: "kubectl-client-side-apply" },
        { manager: "fleet-agent" },
        { manager: "kube-controller-manager" },
      ],
    }),
    null,
  );
  assert.equal(gitOpsOwner({ labels: { "app.kubernetes.io/instance": "other" } }, null), null, "no recorded name: no guess");
});
