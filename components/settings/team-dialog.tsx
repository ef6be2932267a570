"use client";

import { useState, type FormEvent } from "react";
import { createTeamSchema } from "@/lib/domain/teams";
import { useCreateTeam, useScopePreview, useUpdateTeam, type ScopePreview, type Team } from "@/lib/client/teams";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";

function Sample({ label, sample, tone }: { label: string; sample: { count: number; names: string[] }; tone: string }) {
  const more = sample.count - sample.names.length;
  return (
    <p className="text-sm">
      <span className={`font-medium ${tone}`}>
        {label} {sample.count.toLocaleString("en-US")} cluster{sample.count === 1 ? "" : "s"}
      </span>
      {sample.names.length > 0 && (
        <span className="text-slate-600 dark:text-slate-400">
          : {sample.names.join(", ")}
          {more > 0 ? `, and ${more.toLocaleString("en-US")} more` : ""}
        </span>
      )}
    </p>
  );
}

/** What the typed scope matches, live; editing a team, who enters and who leaves it. */
function ScopePreviewPanel({ preview, pending }: { preview: ScopePreview | undefined; pending: boolean }) {
  return (
    <div
      aria-live="polite"
      data-testid="scope-preview"
      className="min-h-16 space-y-1 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 dark:border-slate-800 dark:bg-slate-950"
    >
      {!preview ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">
          {pending ? "Checking the scope…" : "Type a scope to see the clusters it takes in."}
        </p>
      ) : preview.problem ? (
        <p className="text-sm text-rose-700 dark:text-rose-400">{preview.problem}</p>
      ) : (
        <>
          <Sample label="Matches" sample={preview.matches} tone="" />
          {preview.entering && preview.entering.count > 0 && (
            <Sample label="Entering:" sample={preview.entering} tone="text-emerald-700 dark:text-emerald-400" />
          )}
          {preview.leaving && preview.leaving.count > 0 && (
            <Sample label="Leaving:" sample={preview.leaving} tone="text-amber-700 dark:text-amber-400" />
          )}
        </>
      )}
    </div>
  );
}

/** Creates a team, or edits one's name, description and scope, with a live preview of the scope. */
export function TeamDialog({ team, onClose }: { team: Team | null; onClose: () => void }) {
  const create = useCreateTeam();
  const update = useUpdateTeam();
  const mutation = team ? update : create;
  const [name, setName] = useState(team?.name ?? "");
  const [description, setDescription] = useState(team?.description ?? "");
  const [selector, setSelector] = useState(team?.selector ?? "");
  const [errors, setErrors] = useState<{ name?: string; selector?: string }>({});
  const settled = useDebouncedValue(selector, 300);
  const preview = useScopePreview(settled, team?.id ?? null);

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = createTeamSchema.safeParse({ name, description: description || undefined, selector });
    if (!parsed.success) {
      const issue = (field: string) => parsed.error.issues.find((i) => i.path[0] === field)?.message;
      setErrors({ name: issue("name"), selector: issue("selector") });
      return;
    }
    const done = { onSuccess: () => onClose() };
    if (team) update.mutate({ id: team.id, patch: { ...parsed.data, description: description || null } }, done);
    else create.mutate(parsed.data, done);
  }

  return (
    <Dialog
      title={team ? `Edit team ${team.name}` : "New team"}
      description="A team sees and acts on the clusters its scope matches, by their labels: new clusters join it by themselves."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field
          id="team-name"
          label="Name"
          placeholder="payments"
          value={name}
          maxLength={63}
          autoFocus
          onChange={(e) => {
            setName(e.target.value);
            setErrors((x) => ({ ...x, name: undefined }));
          }}
          error={errors.name}
        />
        <Field
          id="team-description"
          label="Description"
          placeholder="Owns the payment clusters"
          value={description}
          maxLength={500}
          onChange={(e) => setDescription(e.target.value)}
        />
        <Field
          id="team-scope"
          label="Scope (label selector)"
          placeholder="team=payments"
          value={selector}
          maxLength={1024}
          onChange={(e) => {
            setSelector(e.target.value);
            setErrors((x) => ({ ...x, selector: undefined }));
          }}
          hint="Names at least one label value, e.g. team=payments or team in (payments,billing). Team members cannot change the labels a scope reads."
          error={errors.selector}
        />
        <ScopePreviewPanel preview={settled.trim() ? preview.data : undefined} pending={preview.isFetching} />
        <FormActions
          error={mutation.error}
          onCancel={onClose}
          pending={mutation.isPending}
          label={team ? "Save team" : "Create team"}
          pendingLabel="Saving…"
        />
      </form>
    </Dialog>
  );
}
