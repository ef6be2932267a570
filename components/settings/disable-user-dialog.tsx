"use client";

import { useApiKeys, useUpdateUser, type User } from "@/lib/client/settings";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/**
 * Confirms disabling a user: they cannot sign in until enabled again, their open sessions end,
 * and the API keys they minted stop working (named here, so nobody is surprised by a red pipeline).
 */
export function DisableUserDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const update = useUpdateUser();
  const keys = useApiKeys();
  const affected = (keys.data ?? []).filter((k) => k.createdBy?.id === user.id && k.status === "active");
  return (
    <ConfirmDialog
      title={`Disable ${user.email}?`}
      description={
        <>
          They cannot sign in until an admin enables them again; their history in the audit log stays.
          {affected.length > 0 && (
            <span className="mt-2 block" data-testid="keys-stop-working">
              {affected.length === 1
                ? "This API key they minted will stop working"
                : `These ${affected.length} API keys they minted will stop working`}
              : {affected.map((k) => k.name).join(", ")}.
            </span>
          )}
        </>
      }
      confirmLabel="Disable user"
      pendingLabel="Disabling…"
      pending={update.isPending}
      error={update.error}
      onConfirm={() => update.mutate({ id: user.id, patch: { disabled: true } }, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
