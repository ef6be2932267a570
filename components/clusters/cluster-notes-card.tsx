"use client";

import { useId, useState, type FormEvent } from "react";
import { CLUSTER_NOTES_MAX, CLUSTER_OWNER_MAX } from "@/lib/contracts/clusters";
import type { ClusterDetail } from "@/lib/client/clusters";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { textareaClass } from "@/components/ui/reason-dialog";

/** Who looks after the cluster and free-text notes: descriptive, editable by operators, audited. */
export function ClusterNotesCard({
  cluster,
  canEdit,
  onSave,
}: {
  cluster: Pick<ClusterDetail, "owner" | "notes">;
  canEdit: boolean;
  onSave: (patch: { owner: string | null; notes: string | null }) => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  return (
    <Card
      title="Owner and notes"
      action={
        canEdit && !editing ? (
          <Button variant="ghost" onClick={() => setEditing(true)}>
            <span>
              Edit<span className="sr-only"> owner and notes</span>
            </span>
          </Button>
        ) : null
      }
    >
      {editing ? (
        <NotesForm cluster={cluster} onSave={onSave} onDone={() => setEditing(false)} />
      ) : (
        <dl className="space-y-3 text-sm" data-testid="cluster-owner-notes">
          <div>
            <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">Owner</dt>
            <dd data-testid="cluster-owner">
              {cluster.owner ?? <span className="text-slate-500 dark:text-slate-400">Not set</span>}
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">Notes</dt>
            <dd data-testid="cluster-notes" className="break-words whitespace-pre-wrap">
              {cluster.notes ?? <span className="text-slate-500 dark:text-slate-400">None</span>}
            </dd>
          </div>
        </dl>
      )}
    </Card>
  );
}

function NotesForm({
  cluster,
  onSave,
  onDone,
}: {
  cluster: Pick<ClusterDetail, "owner" | "notes">;
  onSave: (patch: { owner: string | null; notes: string | null }) => Promise<unknown>;
  onDone: () => void;
}) {
  const id = useId();
  const [owner, setOwner] = useState(cluster.owner ?? "");
  const [notes, setNotes] = useState(cluster.notes ?? "");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ownerTooLong = owner.trim().length > CLUSTER_OWNER_MAX;
  const notesTooLong = notes.trim().length > CLUSTER_NOTES_MAX;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (ownerTooLong || notesTooLong) return;
    setPending(true);
    setError(null);
    onSave({ owner: owner.trim() || null, notes: notes.trim() || null })
      .then(onDone)
      .catch(setError)
      .finally(() => setPending(false));
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      <Field
        id={`${id}-owner`}
        label="Owner"
        value={owner}
        autoFocus
        onChange={(e) => setOwner(e.target.value)}
        hint="A team, a person or an on-call alias."
        error={ownerTooLong ? `Owner is at most ${CLUSTER_OWNER_MAX} characters.` : null}
      />
      <div className="space-y-1.5">
        <label htmlFor={`${id}-notes`} className="block text-sm font-medium">
          Notes
        </label>
        <textarea
          id={`${id}-notes`}
          rows={4}
          value={notes}
          onChange={(e) => setNotes(e.target.value)}
          aria-invalid={notesTooLong || undefined}
          aria-describedby={`${id}-notes-hint`}
          className={textareaClass}
        />
        <p
          id={`${id}-notes-hint`}
          className={`text-xs ${notesTooLong ? "text-rose-600 dark:text-rose-400" : "text-slate-500 dark:text-slate-400"}`}
        >
          {notes.trim().length.toLocaleString("en")} of {CLUSTER_NOTES_MAX.toLocaleString("en")} characters. Changes are kept in
          the audit log.
        </p>
      </div>
      <FormActions
        onCancel={onDone}
        pending={pending}
        label="Save"
        pendingLabel="Saving…"
        disabled={ownerTooLong || notesTooLong}
        error={error}
      />
    </form>
  );
}
