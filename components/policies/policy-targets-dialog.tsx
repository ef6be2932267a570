"use client";

import { useState, type FormEvent } from "react";
import { useGroups } from "@/lib/client/groups";
import { useUpdatePolicy, type Policy } from "@/lib/client/policies";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { Field } from "@/components/ui/field";
import { GroupPicker } from "./group-picker";
import { InlineError } from "@/components/ui/inline-error";

/** Changes where a policy applies (its groups) and its description; the content keeps its revision. */
export function PolicyTargetsDialog({ policy, onClose }: { policy: Policy; onClose: () => void }) {
  const groups = useGroups();
  const update = useUpdatePolicy();
  const [groupIds, setGroupIds] = useState(policy.groups.map((g) => g.id));
  const [description, setDescription] = useState(policy.description ?? "");

  function submit(e: FormEvent) {
    e.preventDefault();
    update.mutate({ id: policy.id, patch: { groupIds, description: description.trim() || null } }, { onSuccess: onClose });
  }

  return (
    <Dialog
      title={`Edit ${policy.name}`}
      description="Clusters that join a target group get the current revision; clusters that leave all of them stop getting it."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field
          id="policy-edit-description"
          label="Description (optional)"
          value={description}
          maxLength={500}
          onChange={(e) => setDescription(e.target.value)}
        />
        <GroupPicker groups={groups.data} selected={groupIds} onChange={setGroupIds} error={groups.error?.message} />
        {update.error && <InlineError error={update.error} />}
        <FormActions onCancel={onClose} pending={update.isPending} label="Save" pendingLabel="Saving…" />
      </form>
    </Dialog>
  );
}
