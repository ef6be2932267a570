"use client";

import { emptyFixedRow, type DraftErrors, type FixedRow } from "./mint-token-draft";
import { Button } from "@/components/ui/button";
import { FieldError, rowInputClass } from "@/components/ui/field-error";

/** Labels the token stamps on every cluster it registers (e.g. env=prod), whatever the agent sends. */
export function FixedLabelsEditor({
  rows,
  errors,
  onChange,
}: {
  rows: FixedRow[];
  errors: DraftErrors;
  onChange: (rows: FixedRow[]) => void;
}) {
  const setRow = (id: string, patch: Partial<FixedRow>) => onChange(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium">Fixed labels</legend>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Stamped on every cluster this token registers; an agent asking for another value is refused.
      </p>
      {rows.map((row, i) => {
        const keyError = errors[`${row.id}-key`];
        const valueError = errors[`${row.id}-value`];
        return (
          <div key={row.id} className="space-y-1">
            <div className="flex items-center gap-2">
              <label htmlFor={`${row.id}-key`} className="sr-only">
                Fixed label key {i + 1}
              </label>
              <input
                id={`${row.id}-key`}
                className={`${rowInputClass} min-w-0 flex-1 font-mono`}
                placeholder="env"
                value={row.key}
                aria-invalid={keyError ? true : undefined}
                aria-describedby={keyError ? `${row.id}-key-error` : undefined}
                onChange={(e) => setRow(row.id, { key: e.target.value })}
              />
              <span aria-hidden className="text-slate-400">
                =
              </span>
              <label htmlFor={`${row.id}-value`} className="sr-only">
                Fixed label value {i + 1}
              </label>
              <input
                id={`${row.id}-value`}
                className={`${rowInputClass} min-w-0 flex-1 font-mono`}
                placeholder="prod"
                value={row.value}
                aria-invalid={valueError ? true : undefined}
                aria-describedby={valueError ? `${row.id}-value-error` : undefined}
                onChange={(e) => setRow(row.id, { value: e.target.value })}
              />
              <Button
                type="button"
                variant="ghost"
                className="w-9 shrink-0 px-0"
                aria-label={`Remove fixed label ${i + 1}${row.key ? ` (${row.key})` : ""}`}
                onClick={() => onChange(rows.filter((r) => r.id !== row.id))}
              >
                ×
              </Button>
            </div>
            <FieldError id={`${row.id}-key-error`} message={keyError} />
            <FieldError id={`${row.id}-value-error`} message={valueError} />
          </div>
        );
      })}
      <Button type="button" variant="secondary" onClick={() => onChange([...rows, emptyFixedRow()])}>
        Add fixed label
      </Button>
    </fieldset>
  );
}
