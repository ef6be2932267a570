"use client";

import { useState, type FormEvent } from "react";
import { createApiKeySchema } from "@/lib/domain/api-keys";
import { FLEET_ROLES, type FleetRole } from "@/lib/domain/roles";
import { useCreateApiKey, type CreatedApiKey } from "@/lib/client/settings";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { Field, SelectField } from "@/components/ui/field";
import { ROLE_HINT } from "./role-badge";

const EXPIRY = [
  { days: 7, label: "7 days" },
  { days: 30, label: "30 days" },
  { days: 90, label: "90 days" },
  { days: 365, label: "1 year" },
  { days: 0, label: "Never" },
] as const;

function RevealedKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  return (
    <SecretReveal
      notice="Copy the key now: it is shown only this once and stored only as a hash."
      label={`API key “${created.name}” (${created.role})`}
      secret={created.key}
      copyLabel="Copy key"
      testId="api-key-secret"
      usageLabel="In a pipeline:"
      usage={`curl -H "Authorization: Bearer $FLEET_API_KEY" \\\n  "${origin}/api/v1/gate?selector=env%3Dprod"`}
      onDone={onDone}
    />
  );
}

/** Mints an API key with a role and an expiry, then shows it exactly once. */
export function CreateApiKeyDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateApiKey();
  const [name, setName] = useState("");
  const [role, setRole] = useState<FleetRole>("viewer");
  const [days, setDays] = useState<number>(90);
  const [nameError, setNameError] = useState<string | null>(null);
  // The key lives in this component's state only (not the query or mutation cache) and is gone when it closes.
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = createApiKeySchema.safeParse({ name, role, expiresInDays: days || undefined });
    if (!parsed.success) {
      setNameError(parsed.error.issues.find((i) => i.path[0] === "name")?.message ?? "invalid");
      return;
    }
    create.mutate(parsed.data, {
      onSuccess: (key) => {
        setCreated(key);
        create.reset();
      },
    });
  }

  return (
    <Dialog
      title={created ? "API key created" : "New API key"}
      description={created ? undefined : "For pipelines, monitoring and the CLI. Give it the lowest role that does the job."}
      onClose={onClose}
    >
      {created ? (
        <RevealedKey created={created} onDone={onClose} />
      ) : (
        <form onSubmit={submit} noValidate className="space-y-4">
          <Field
            id="api-key-name"
            label="Name"
            placeholder="ci-deploy-gate"
            value={name}
            maxLength={100}
            autoFocus
            onChange={(e) => {
              setName(e.target.value);
              setNameError(null);
            }}
            hint="What uses it, so the list says who to ask before revoking."
            error={nameError}
          />
          <div className="grid grid-cols-2 gap-4">
            <SelectField
              id="api-key-role"
              label="Role"
              value={role}
              options={FLEET_ROLES.map((r) => ({ value: r, label: r }))}
              onValueChange={setRole}
            />
            <SelectField
              id="api-key-expiry"
              label="Expires after"
              value={days}
              options={EXPIRY.map((x) => ({ value: x.days, label: x.label }))}
              onValueChange={setDays}
            />
          </div>
          <p className="text-xs text-slate-500 dark:text-slate-400">
            {role}: {ROLE_HINT[role]}.
          </p>
          <FormActions
            error={create.error}
            onCancel={onClose}
            pending={create.isPending}
            label="Create key"
            pendingLabel="Creating…"
          />
        </form>
      )}
    </Dialog>
  );
}
