"use client";

import { useState, type FormEvent } from "react";
import { policyContentSchema, policyNameSchema } from "@/lib/domain/policies";
import { useGroups } from "@/lib/client/groups";
import { useCreatePolicy } from "@/lib/client/policies";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { GroupPicker } from "./group-picker";
import { InlineError } from "@/components/ui/inline-error";
import { JsonField } from "@/components/ui/json-field";
import { checkJson, prettyJson } from "@/components/ui/json-text";

export const EXAMPLE_CONTENT = prettyJson({
  podSecurity: "restricted",
  networkPolicy: { defaultDeny: true },
  logging: { enabled: true, retentionDays: 30 },
});

/** Creates a policy: its name, what it is for, where it applies, and revision 1's content. */
export function CreatePolicyDialog({ onClose }: { onClose: () => void }) {
  const groups = useGroups();
  const create = useCreatePolicy();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [groupIds, setGroupIds] = useState<string[]>([]);
  const [content, setContent] = useState(EXAMPLE_CONTENT);
  const [nameError, setNameError] = useState<string | null>(null);
  const check = checkJson(content, policyContentSchema);

  function submit(e: FormEvent) {
    e.preventDefault();
    const n = policyNameSchema.safeParse(name);
    setNameError(n.success ? null : (n.error.issues[0]?.message ?? "invalid name"));
    if (!n.success || !check.ok) return;
    create.mutate(
      { name: n.data, description: description.trim() || undefined, groupIds, content: check.value },
      { onSuccess: onClose },
    );
  }

  return (
    <Dialog
      title="New policy"
      description="Revision 1 goes to every cluster in the target groups with its next heartbeat (draining clusters keep what they have)."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field
          id="policy-name"
          label="Name"
          placeholder="baseline-security"
          value={name}
          autoFocus
          onChange={(e) => {
            setName(e.target.value);
            setNameError(null);
          }}
          hint="Lowercase letters, digits and '-'; it cannot be changed later."
          error={nameError}
        />
        <Field
          id="policy-description"
          label="Description (optional)"
          placeholder="Pod security and default-deny networking for every cluster"
          value={description}
          maxLength={500}
          onChange={(e) => setDescription(e.target.value)}
        />
        <GroupPicker groups={groups.data} selected={groupIds} onChange={setGroupIds} error={groups.error?.message} />
        <JsonField
          label="Content (JSON)"
          value={content}
          onChange={setContent}
          problems={check.ok ? [] : check.problems}
          hint="A JSON object the agents apply; at most 32 KiB."
          rows={9}
        />
        {create.error && <InlineError error={create.error} />}
        <FormActions
          onCancel={onClose}
          pending={create.isPending}
          disabled={!check.ok}
          label="Create policy"
          pendingLabel="Creating…"
        />
      </form>
    </Dialog>
  );
}
