"use client";

import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError } from "@/components/ui/inline-error";

/**
 * "Are you sure?" for a destructive action: Cancel has the focus, the action button says what
 * it does and what is happening, and a failure stays in the dialog with the server's message.
 * (When the action needs a reason for the audit log, use ReasonDialog.)
 */
export function ConfirmDialog({
  title,
  description,
  confirmLabel,
  pendingLabel,
  variant = "danger",
  pending,
  error,
  onConfirm,
  onClose,
}: {
  title: string;
  description: ReactNode;
  /** e.g. "Revoke token" */
  confirmLabel: string;
  /** e.g. "Revoking…" */
  pendingLabel: string;
  /** "primary" for a confirmation that removes nothing (approving a selection) */
  variant?: "primary" | "danger";
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title={title} description={description} onClose={onClose}>
      {error ? <InlineError error={error} className="mb-4" /> : null}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose} autoFocus>
          Cancel
        </Button>
        <Button variant={variant} disabled={pending} onClick={onConfirm}>
          {pending ? pendingLabel : confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}
