"use client";

import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import type { Labels } from "@/lib/domain/labels";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { LabelChip } from "@/components/ui/label-chips";
import {
  describeChanges,
  labelChanges,
  labelsFromRows,
  newRow,
  removalBlocked,
  rowProblems,
  rowsFromLabels,
  type LabelRow,
} from "./label-rows";

type Outcome = { kind: "saving" } | { kind: "saved"; text: string } | { kind: "error"; text: string } | null;

/**
 * A cluster's labels: chips for everyone, an editor for operators. Saving closes the editor at
 * once (the page shows the new labels optimistically); if the server refuses, the editor opens
 * again with what was typed and the server's reason.
 */
export function LabelsEditor({
  labels,
  requiredLabels,
  canEdit,
  onSave,
}: {
  labels: Labels;
  requiredLabels: readonly string[];
  canEdit: boolean;
  onSave: (labels: Labels) => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  const [rows, setRows] = useState<LabelRow[]>([]);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [explain, setExplain] = useState<string | null>(null);
  const [focusRow, setFocusRow] = useState<string | null>(null);
  const editButtonId = useId();
  const returnFocus = useRef(false);
  const formRef = useRef<HTMLFormElement>(null);
  const focusEditor = useRef(false);

  // Closing the editor removes the focused element; put focus back where editing started.
  useEffect(() => {
    if (!editing && returnFocus.current) {
      returnFocus.current = false;
      document.getElementById(editButtonId)?.focus();
    }
  }, [editing, editButtonId]);
  // Opening it removes the button that had focus: move focus into the editor, to its first field.
  useEffect(() => {
    if (editing && focusEditor.current) {
      focusEditor.current = false;
      formRef.current?.querySelector<HTMLElement>("input:not([readonly]), button")?.focus();
    }
  }, [editing]);

  const problems = useMemo(() => rowProblems(rows, requiredLabels), [rows, requiredLabels]);
  const next = useMemo(() => labelsFromRows(rows), [rows]);
  const changes = useMemo(() => labelChanges(labels, next), [labels, next]);
  const summary = describeChanges(changes);

  const start = () => {
    setRows(rowsFromLabels(labels, requiredLabels));
    setOutcome(null);
    setExplain(null);
    focusEditor.current = true;
    setEditing(true);
  };
  const cancel = () => {
    returnFocus.current = true;
    setEditing(false);
    setOutcome(null);
  };
  const update = (id: string, patch: Partial<LabelRow>) => setRows((rs) => rs.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  const add = () => {
    const row = newRow();
    setRows((rs) => [...rs, row]);
    setFocusRow(row.id);
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (problems.size > 0 || !summary) return;
    const done = summary;
    returnFocus.current = true;
    setEditing(false);
    setOutcome({ kind: "saving" });
    try {
      await onSave(next);
      setOutcome({ kind: "saved", text: `Labels saved: ${done}.` });
    } catch (err) {
      setOutcome({
        kind: "error",
        text: err instanceof ApiRequestError ? err.message : "The labels could not be saved; try again.",
      });
      focusEditor.current = true;
      setEditing(true);
    }
  }

  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div className="space-y-4">
      {!editing ? (
        <>
          {entries.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">This cluster has no labels.</p>
          ) : (
            <ul className="flex flex-wrap gap-1.5" aria-label="Labels">
              {entries.map(([k, v]) => (
                <li key={k} className="flex items-center gap-1">
                  <LabelChip k={k} v={v} />
                  {requiredLabels.includes(k) && <span className="sr-only">(required)</span>}
                </li>
              ))}
            </ul>
          )}
          <div className="flex items-center gap-3">
            {canEdit && (
              <Button id={editButtonId} variant="secondary" onClick={start}>
                Edit labels
              </Button>
            )}
            {requiredLabels.length > 0 && (
              <p className="text-xs text-slate-500 dark:text-slate-400">
                Required in this fleet: <span className="font-mono">{requiredLabels.join(", ")}</span>
              </p>
            )}
          </div>
        </>
      ) : (
        <form ref={formRef} onSubmit={submit} noValidate aria-label="Edit labels" className="space-y-3">
          <div className="grid grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] gap-x-2 gap-y-1 text-xs font-medium text-slate-500 dark:text-slate-400">
            <span>Key</span>
            <span>Value</span>
            <span className="sr-only">Remove</span>
          </div>
          <ul className="space-y-2">
            {rows.map((row, i) => (
              <LabelRowFields
                key={row.id}
                row={row}
                index={i}
                problems={problems.get(row.id)}
                blocked={removalBlocked(row, requiredLabels)}
                required={requiredLabels.includes(row.key.trim())}
                explained={explain === row.id}
                autoFocus={focusRow === row.id}
                onChange={(patch) => update(row.id, patch)}
                onExplain={() => setExplain(row.id)}
                onRemove={() => {
                  if (removalBlocked(row, requiredLabels)) setExplain(row.id);
                  else setRows((rs) => rs.filter((r) => r.id !== row.id));
                }}
              />
            ))}
          </ul>
          <Button type="button" variant="ghost" onClick={add}>
            + Add label
          </Button>
          {outcome?.kind === "error" && (
            <p
              role="alert"
              className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
            >
              {outcome.text}
            </p>
          )}
          <div className="flex items-center gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
            <Button type="submit" disabled={problems.size > 0 || !summary}>
              Save labels
            </Button>
            <Button type="button" variant="secondary" onClick={cancel}>
              Cancel
            </Button>
            <p className="text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
              {problems.size > 0 ? "Fix the highlighted fields to save." : summary ? `Unsaved: ${summary}.` : "No changes yet."}
            </p>
          </div>
        </form>
      )}
      {!editing && outcome && outcome.kind !== "error" && (
        <p
          role="status"
          className={`text-sm ${outcome.kind === "saved" ? "text-emerald-700 dark:text-emerald-400" : "text-slate-600 dark:text-slate-400"}`}
        >
          {outcome.kind === "saving" ? "Saving labels…" : outcome.text}
        </p>
      )}
    </div>
  );
}

function LabelRowFields({
  row,
  index,
  problems,
  blocked,
  required,
  explained,
  autoFocus,
  onChange,
  onExplain,
  onRemove,
}: {
  row: LabelRow;
  index: number;
  problems: { key?: string; value?: string } | undefined;
  blocked: string | null;
  required: boolean;
  explained: boolean;
  autoFocus: boolean;
  onChange: (patch: Partial<LabelRow>) => void;
  onExplain: () => void;
  onRemove: () => void;
}) {
  const id = useId();
  const name = row.key.trim() || `row ${index + 1}`;
  return (
    <li>
      <div className="grid grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] items-start gap-2">
        <div>
          <label htmlFor={`${id}-key`} className="sr-only">
            Key of label {index + 1}
          </label>
          <div className="relative">
            <input
              id={`${id}-key`}
              value={row.key}
              // A required key is fixed: renaming it would remove the required label.
              readOnly={required}
              autoFocus={autoFocus}
              spellCheck={false}
              autoComplete="off"
              placeholder="team or example.com/team"
              aria-invalid={problems?.key ? true : undefined}
              aria-describedby={problems?.key ? `${id}-key-error` : undefined}
              onChange={(e) => onChange({ key: e.target.value })}
              className={`${inputClass} font-mono ${required ? "bg-slate-50 pr-20 text-slate-600 dark:bg-slate-900 dark:text-slate-400" : ""}`}
            />
            {required && (
              <span className="pointer-events-none absolute top-1/2 right-2 -translate-y-1/2 rounded bg-slate-200 px-1.5 py-0.5 text-[11px] font-medium text-slate-600 dark:bg-slate-700 dark:text-slate-300">
                required
              </span>
            )}
          </div>
          {problems?.key && (
            <p id={`${id}-key-error`} className="mt-1 text-xs text-rose-600 dark:text-rose-400">
              {problems.key}
            </p>
          )}
        </div>
        <div>
          <label htmlFor={`${id}-value`} className="sr-only">
            Value of {name}
          </label>
          <input
            id={`${id}-value`}
            value={row.value}
            spellCheck={false}
            autoComplete="off"
            placeholder="value (may be empty)"
            aria-invalid={problems?.value ? true : undefined}
            aria-describedby={problems?.value ? `${id}-value-error` : undefined}
            onChange={(e) => onChange({ value: e.target.value })}
            className={`${inputClass} font-mono`}
          />
          {problems?.value && (
            <p id={`${id}-value-error`} className="mt-1 text-xs text-rose-600 dark:text-rose-400">
              {problems.value}
            </p>
          )}
        </div>
        <Button
          type="button"
          variant="ghost"
          // aria-disabled rather than disabled: the button stays focusable, so keyboard and
          // screen-reader users can reach it and hear why it does nothing.
          aria-disabled={blocked ? true : undefined}
          aria-describedby={blocked && explained ? `${id}-blocked` : undefined}
          title={blocked ?? undefined}
          // Focus (keyboard) or a click (pointer) shows why the button does nothing. It stays
          // shown after blur: hiding it would shift the rows under the pointer mid-click.
          onFocus={blocked ? onExplain : undefined}
          onClick={onRemove}
          className={blocked ? "cursor-not-allowed text-slate-400 hover:bg-transparent dark:text-slate-500" : ""}
        >
          Remove<span className="sr-only"> {name}</span>
        </Button>
      </div>
      {blocked && explained && (
        <p
          id={`${id}-blocked`}
          role="status"
          className="mt-1 rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-800 dark:bg-amber-950/50 dark:text-amber-300"
        >
          {blocked}
        </p>
      )}
    </li>
  );
}
