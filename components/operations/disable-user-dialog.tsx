"use client";

import { useUpdateUser, type User } from "@/lib/client/operations";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms disabling a user: they cannot sign in until enabled again. */
export function DisableUserDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const update = useUpdateUser();
  return (
    <ConfirmDialog
      title={`Disable ${user.email}?`}
      description="They cannot sign in until an admin enables them again; their history in the audit log stays."
      confirmLabel="Disable user"
      pendingLabel="Disabling…"
      pending={update.isPending}
      error={update.error}
      onConfirm={() => update.mutate({ id: user.id, patch: { disabled: true } }, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
