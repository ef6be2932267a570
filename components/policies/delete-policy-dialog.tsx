"use client";

import { useDeletePolicy, type Policy } from "@/lib/client/policies";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms deleting a policy and all its revisions. */
export function DeletePolicyDialog({ policy, onClose }: { policy: Policy; onClose: () => void }) {
  const remove = useDeletePolicy();
  return (
    <ConfirmDialog
      title={`Delete policy “${policy.name}”?`}
      description={
        <>
          Its {policy.revisions.length} revision{policy.revisions.length === 1 ? "" : "s"} go with it. Clusters in{" "}
          {policy.groups.length ? policy.groups.map((g) => g.name).join(", ") : "its groups"} stop being asked to apply it; what
          they already applied stays on them.
        </>
      }
      confirmLabel="Delete policy"
      pendingLabel="Deleting…"
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate(policy.id, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
