"use client";

import { useDeleteCapiSource, type CapiSourceView } from "@/lib/client/cluster-api";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms deleting a source: the fleet stops watching it; its clusters stay, and the management cluster is left as it is. */
export function DeleteCapiSourceDialog({ source, onClose }: { source: CapiSourceView; onClose: () => void }) {
  const remove = useDeleteCapiSource();
  const imported = source.steps.provisioning + source.steps.joining + source.steps.applied + source.steps.joined;
  return (
    <ConfirmDialog
      title={`Delete the source ${source.name}?`}
      description={
        <>
          The fleet stops watching <span className="font-mono break-all">{source.server}</span> and forgets its sealed kubeconfig.{" "}
          {imported === 0
            ? "No cluster has been imported from it."
            : imported === 1
              ? "The cluster imported from it stays in the fleet."
              : `The ${imported.toLocaleString("en")} clusters imported from it stay in the fleet.`}{" "}
          Nothing changes on the management cluster: no CAPI Cluster is deleted or annotated. Clusters it creates from now on are
          not imported.
        </>
      }
      confirmLabel="Delete source"
      pendingLabel="Deleting…"
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate(source.id, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
