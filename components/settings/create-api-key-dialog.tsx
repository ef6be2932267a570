"use client";

import { useState, type FormEvent } from "react";
import { createApiKeySchema } from "@/lib/domain/api-keys";
import { ROLES, type Role } from "@/lib/domain/roles";
import { useCreateApiKey, type CreatedApiKey } from "@/lib/client/settings";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { Field, SelectField } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
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
    <div className="space-y-4">
      <p
        role="status"
        className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
      >
        Copy the key now: it is shown only this once and stored only as a hash.
      </p>
      <div className="space-y-1.5">
        <p className="text-sm font-medium" id="api-key-label">
          API key “{created.name}” ({created.role})
        </p>
        <div className="flex items-center gap-2">
          <code
            data-testid="api-key-secret"
            aria-labelledby="api-key-label"
            className="min-w-0 flex-1 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs break-all dark:border-slate-800 dark:bg-slate-950"
          >
            {created.key}
          </code>
          <CopyButton text={created.key} label="Copy key" />
        </div>
      </div>
      <div className="space-y-1.5">
        <p className="text-xs text-slate-600 dark:text-slate-400">In a pipeline:</p>
        <pre className="overflow-x-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs leading-relaxed dark:border-slate-800 dark:bg-slate-950">
          {`curl -H "Authorization: Bearer $FLEET_API_KEY" \\\n  "${origin}/api/v1/gate?selector=env%3Dprod"`}
        </pre>
      </div>
      <div className="flex justify-end">
        <Button onClick={onDone} autoFocus>
          I have copied it
        </Button>
      </div>
    </div>
  );
}

/** Mints an API key with a role and an expiry, then shows it exactly once. */
export function CreateApiKeyDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateApiKey();
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("viewer");
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
              options={ROLES.map((r) => ({ value: r, label: r }))}
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
          {create.error && <InlineError error={create.error} />}
          <FormActions onCancel={onClose} pending={create.isPending} label="Create key" pendingLabel="Creating…" />
        </form>
      )}
    </Dialog>
  );
}
