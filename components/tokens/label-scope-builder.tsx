"use client";

import { emptyScopeRow, type DraftErrors, type MintDraft, type ScopeRow } from "./mint-token-draft";
import { Button } from "@/components/ui/button";
import { FieldError, rowInputClass, selectClass } from "@/components/ui/field-error";
import { LabelValuesInput } from "./label-values-input";

/**
 * The allowed label scope: "no restriction" (the default: agents may ask for any label), or a
 * list of keys, each with the values an agent may ask for or "any value".
 */
export function LabelScopeBuilder({
  mode,
  rows,
  errors,
  onChange,
}: {
  mode: MintDraft["scopeMode"];
  rows: ScopeRow[];
  errors: DraftErrors;
  onChange: (patch: Partial<Pick<MintDraft, "scopeMode" | "scopeRows">>) => void;
}) {
  const setRow = (id: string, patch: Partial<ScopeRow>) =>
    onChange({ scopeRows: rows.map((r) => (r.id === id ? { ...r, ...patch } : r)) });
  return (
    <fieldset className="space-y-3">
      <legend className="mb-1.5 text-sm font-medium">Labels agents may ask for</legend>
      <div className="space-y-1.5 text-sm">
        <label className="flex items-start gap-2">
          <input
            type="radio"
            name="scope-mode"
            className="mt-0.5 accent-sky-600"
            checked={mode === "any"}
            onChange={() => onChange({ scopeMode: "any" })}
          />
          <span>
            No restriction <span className="text-slate-500 dark:text-slate-400">— any label the agent sends is accepted</span>
          </span>
        </label>
        <label className="flex items-start gap-2">
          <input
            type="radio"
            name="scope-mode"
            className="mt-0.5 accent-sky-600"
            checked={mode === "scoped"}
            onChange={() => onChange({ scopeMode: "scoped", scopeRows: rows.length ? rows : [emptyScopeRow()] })}
          />
          <span>
            Only these labels <span className="text-slate-500 dark:text-slate-400">— anything else is refused</span>
          </span>
        </label>
      </div>

      {mode === "scoped" && (
        <div className="space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3 dark:border-slate-800 dark:bg-slate-950/40">
          {rows.length === 0 && (
            <p className="text-xs text-slate-600 dark:text-slate-400">
              No keys: agents may send no labels at all; only fixed labels apply.
            </p>
          )}
          {rows.map((row, i) => {
            const keyError = errors[`${row.id}-key`];
            const valuesError = errors[`${row.id}-values`];
            return (
              <div key={row.id} className="space-y-1">
                <div className="flex items-start gap-2">
                  <label htmlFor={`${row.id}-key`} className="sr-only">
                    Allowed label key {i + 1}
                  </label>
                  <input
                    id={`${row.id}-key`}
                    className={`${rowInputClass} w-36 shrink-0 font-mono`}
                    placeholder="region"
                    value={row.key}
                    aria-invalid={keyError ? true : undefined}
                    aria-describedby={keyError ? `${row.id}-key-error` : undefined}
                    onChange={(e) => setRow(row.id, { key: e.target.value })}
                  />
                  <label htmlFor={`${row.id}-mode`} className="sr-only">
                    Values allowed for label key {i + 1}
                  </label>
                  <select
                    id={`${row.id}-mode`}
                    className={`${selectClass} w-32 shrink-0`}
                    value={row.anyValue ? "any" : "listed"}
                    onChange={(e) => setRow(row.id, { anyValue: e.target.value === "any" })}
                  >
                    <option value="listed">these values</option>
                    <option value="any">any value</option>
                  </select>
                  <div className="min-w-0 flex-1">
                    {row.anyValue ? (
                      <p className="flex h-9 items-center text-sm text-slate-500 dark:text-slate-400">Any value is accepted</p>
                    ) : (
                      <LabelValuesInput
                        id={`${row.id}-values`}
                        label={`Allowed values for label key ${i + 1}`}
                        values={row.values}
                        pending={row.pending}
                        invalid={!!valuesError}
                        describedBy={valuesError ? `${row.id}-values-error` : undefined}
                        onChange={(next) => setRow(row.id, next)}
                      />
                    )}
                  </div>
                  <Button
                    type="button"
                    variant="ghost"
                    className="w-9 shrink-0 px-0"
                    aria-label={`Remove allowed label key ${i + 1}${row.key ? ` (${row.key})` : ""}`}
                    onClick={() => onChange({ scopeRows: rows.filter((r) => r.id !== row.id) })}
                  >
                    ×
                  </Button>
                </div>
                <FieldError id={`${row.id}-key-error`} message={keyError} />
                <FieldError id={`${row.id}-values-error`} message={valuesError} />
              </div>
            );
          })}
          <Button type="button" variant="secondary" onClick={() => onChange({ scopeRows: [...rows, emptyScopeRow()] })}>
            Add label key
          </Button>
          <FieldError id="scope-error" message={errors.scope} />
        </div>
      )}
    </fieldset>
  );
}
