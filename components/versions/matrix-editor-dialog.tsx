"use client";

import { useState, type FormEvent } from "react";
import { compatibilityMatrixSchema, type CompatibilityMatrix } from "@/lib/domain/compatibility";
import { useResetMatrix, useSaveMatrix } from "@/lib/client/versions";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { InlineError } from "@/components/ui/inline-error";
import { JsonField } from "@/components/ui/json-field";
import { checkJson, prettyJson } from "@/components/ui/json-text";

/** Admins replace the compatibility matrix as JSON, checked against the same schema the server uses. */
export function MatrixEditorDialog({ matrix, onClose }: { matrix: CompatibilityMatrix; onClose: () => void }) {
  const save = useSaveMatrix();
  const [text, setText] = useState(() => prettyJson(matrix));
  const check = checkJson(text, compatibilityMatrixSchema);

  function submit(e: FormEvent) {
    e.preventDefault();
    if (check.ok) save.mutate(check.value, { onSuccess: onClose });
  }

  return (
    <Dialog
      title="Edit the compatibility matrix"
      description="Registration checks agents against it at once; flags on the Versions page follow. Ranges use comparators joined by spaces (and) and || (or), e.g. >=1.2.0 <2.0.0 or 1.4.x."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <JsonField
          label="Matrix (JSON)"
          value={text}
          onChange={setText}
          problems={check.ok ? [] : check.problems}
          hint="Valid: schemaVersion 1, a control plane version, the accepted range, the recommended version and the agent rows."
          rows={16}
        />
        {save.error && <InlineError error={save.error} />}
        <FormActions
          onCancel={onClose}
          pending={save.isPending}
          disabled={!check.ok}
          label="Save matrix"
          pendingLabel="Saving…"
        />
      </form>
    </Dialog>
  );
}

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
