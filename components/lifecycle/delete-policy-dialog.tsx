"use client";

import { useDeletePolicy, type Policy } from "@/lib/client/lifecycle";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError } from "./inline-error";

/** Confirms deleting a policy and all its revisions. */
export function DeletePolicyDialog({ policy, onClose }: { policy: Policy; onClose: () => void }) {
  const remove = useDeletePolicy();
  return (
    <Dialog
      title={`Delete policy “${policy.name}”?`}
      description={
        <>
          Its {policy.revisions.length} revision{policy.revisions.length === 1 ? "" : "s"} go with it. Clusters in{" "}
          {policy.groups.length ? policy.groups.map((g) => g.name).join(", ") : "its groups"} stop being asked to apply it; what
          they already applied stays on them.
        </>
      }
      onClose={onClose}
    >
      {remove.error && <InlineError error={remove.error} className="mb-4" />}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose} autoFocus>
          Cancel
        </Button>
        <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(policy.id, { onSuccess: onClose })}>
          {remove.isPending ? "Deleting…" : "Delete policy"}
        </Button>
      </div>
    </Dialog>
  );
}
