"use client";

import { useId, useState, type FormEvent } from "react";
import type { CompatibilityMatrix } from "@/lib/domain/compatibility";
import { draftOf, draftProblems, matrixOf, MAX_MATRIX_ROWS, type MatrixDraft, type MatrixRow } from "@/lib/domain/matrix-rows";
import { useSaveMatrix } from "@/lib/client/versions";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";

/**
 * Admins edit the compatibility matrix as a table: the accepted and recommended versions, then
 * one row per agent range with the Kubernetes range it supports. Every cell says what is wrong
 * with it (lib/domain/matrix-rows.ts); the server checks the whole against the same schema.
 */
export function MatrixTableEditor({ matrix, onClose }: { matrix: CompatibilityMatrix; onClose: () => void }) {
  const id = useId();
  const save = useSaveMatrix();
  const [draft, setDraft] = useState<MatrixDraft>(() => draftOf(matrix));
  const [tried, setTried] = useState(false);
  const problems = draftProblems(draft);
  const show = (p: string | null) => (tried ? p : null);

  const setRow = (i: number, patch: Partial<MatrixRow>) =>
    setDraft((d) => ({ ...d, rows: d.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) }));

  function submit(e: FormEvent) {
    e.preventDefault();
    setTried(true);
    if (problems.ok) save.mutate(matrixOf(draft, matrix), { onSuccess: onClose });
  }

  return (
    <Dialog
      title="Edit the compatibility matrix"
      description="Registration checks agents against it at once; flags on the Versions page follow. Ranges use comparators joined by spaces (and) and || (or), e.g. >=1.2.0 <2.0.0 or 1.4.x."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field
            id={`${id}-accepted`}
            label="Accepted agent versions"
            value={draft.acceptedAgentVersions}
            onChange={(e) => setDraft((d) => ({ ...d, acceptedAgentVersions: e.target.value }))}
            hint="Agents outside it cannot register."
            error={show(problems.acceptedAgentVersions)}
          />
          <Field
            id={`${id}-recommended`}
            label="Recommended agent version"
            value={draft.recommendedAgentVersion}
            onChange={(e) => setDraft((d) => ({ ...d, recommendedAgentVersion: e.target.value }))}
            hint={`Older agents are flagged outdated. This build ships ${matrix.recommendedAgentVersion}.`}
            error={show(problems.recommendedAgentVersion)}
          />
        </div>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">Kubernetes versions each agent range supports</legend>
          <ul className="space-y-3" data-testid="matrix-rows">
            {draft.rows.map((row, i) => (
              <li key={i} className="grid grid-cols-1 items-start gap-2 sm:grid-cols-[1fr_1fr_auto]">
                <Field
                  id={`${id}-agents-${i}`}
                  label={`Row ${i + 1}: agent versions`}
                  value={row.agentVersions}
                  onChange={(e) => setRow(i, { agentVersions: e.target.value })}
                  error={show(problems.rows[i]?.agentVersions ?? null)}
                />
                <Field
                  id={`${id}-kube-${i}`}
                  label={`Row ${i + 1}: Kubernetes versions`}
                  value={row.kubernetes}
                  onChange={(e) => setRow(i, { kubernetes: e.target.value })}
                  error={show(problems.rows[i]?.kubernetes ?? null)}
                />
                <Button
                  type="button"
                  variant="ghost"
                  className="sm:mt-6"
                  onClick={() => setDraft((d) => ({ ...d, rows: d.rows.filter((_, j) => j !== i) }))}
                >
                  Remove<span className="sr-only"> row {i + 1}</span>
                </Button>
              </li>
            ))}
          </ul>
          {tried && problems.table && (
            <p role="alert" className="text-sm text-rose-700 dark:text-rose-400">
              {problems.table}
            </p>
          )}
          <Button
            type="button"
            variant="secondary"
            disabled={draft.rows.length >= MAX_MATRIX_ROWS}
            onClick={() => setDraft((d) => ({ ...d, rows: [...d.rows, { agentVersions: "", kubernetes: "" }] }))}
          >
            Add row
          </Button>
        </fieldset>
        <FormActions
          error={save.error}
          onCancel={onClose}
          pending={save.isPending}
          disabled={tried && !problems.ok}
          label="Save matrix"
          pendingLabel="Saving…"
        />
      </form>
    </Dialog>
  );
}
