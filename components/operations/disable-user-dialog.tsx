"use client";

import { useUpdateUser, type User } from "@/lib/client/operations";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError } from "@/components/lifecycle/inline-error";

/** Confirms disabling a user: they cannot sign in until enabled again. */
export function DisableUserDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const update = useUpdateUser();
  return (
    <Dialog
      title={`Disable ${user.email}?`}
      description="They cannot sign in until an admin enables them again; their history in the audit log stays."
      onClose={onClose}
    >
      {update.error && <InlineError error={update.error} className="mb-4" />}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose} autoFocus>
          Cancel
        </Button>
        <Button
          variant="danger"
          disabled={update.isPending}
          onClick={() => update.mutate({ id: user.id, patch: { disabled: true } }, { onSuccess: onClose })}
        >
          {update.isPending ? "Disabling…" : "Disable user"}
        </Button>
      </div>
    </Dialog>
  );
}
