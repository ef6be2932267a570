"use client";

import { useResetMatrix } from "@/lib/client/versions";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms going back to the matrix shipped with this build. */
export function ResetMatrixDialog({ onClose }: { onClose: () => void }) {
  const reset = useResetMatrix();
  return (
    <ConfirmDialog
      title="Reset to the shipped matrix?"
      description="The admin-edited matrix is discarded and the one shipped with this build applies again. The change is audited."
      confirmLabel="Reset matrix"
      pendingLabel="Resetting…"
      pending={reset.isPending}
      error={reset.error}
      onConfirm={() => reset.mutate(undefined, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
