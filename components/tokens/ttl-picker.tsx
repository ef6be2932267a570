"use client";

import { TTL_PRESETS, TTL_UNITS, type MintDraft, type TtlPresetId, type TtlUnit } from "./mint-token-draft";
import { FieldError, rowInputClass, selectClass } from "@/components/ui/field-error";

type TtlDraft = Pick<MintDraft, "ttlPreset" | "customTtl" | "customUnit">;

/** Lifetime presets as a segmented radio group (arrow keys move between them), plus a custom amount. */
export function TtlPicker({
  value,
  onChange,
  error,
}: {
  value: TtlDraft;
  onChange: (patch: Partial<TtlDraft>) => void;
  error?: string;
}) {
  const options: { id: TtlPresetId; label: string }[] = [...TTL_PRESETS, { id: "custom", label: "Custom" }];
  return (
    <fieldset className="space-y-1.5" aria-describedby={error ? "ttl-error" : "ttl-hint"}>
      <legend className="mb-1.5 text-sm font-medium">Expires after</legend>
      <div className="inline-flex flex-wrap rounded-md border border-slate-300 bg-white p-0.5 shadow-sm dark:border-slate-700 dark:bg-slate-950">
        {options.map((o) => (
          <label
            key={o.id}
            className="cursor-pointer rounded px-3 py-1.5 text-sm font-medium text-slate-700 has-[:checked]:bg-sky-700 has-[:checked]:text-white has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-sky-500 dark:text-slate-300"
          >
            <input
              type="radio"
              name="ttl"
              value={o.id}
              checked={value.ttlPreset === o.id}
              onChange={() => onChange({ ttlPreset: o.id })}
              className="sr-only"
            />
            {o.label}
          </label>
        ))}
      </div>
      {value.ttlPreset === "custom" && (
        <div className="flex items-center gap-2 pt-1">
          <label htmlFor="ttl-amount" className="sr-only">
            Custom lifetime
          </label>
          <input
            id="ttl-amount"
            type="number"
            min={1}
            inputMode="numeric"
            className={`${rowInputClass} w-28 tabular-nums`}
            value={value.customTtl}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "ttl-error" : undefined}
            onChange={(e) => onChange({ customTtl: e.target.value })}
          />
          <label htmlFor="ttl-unit" className="sr-only">
            Unit
          </label>
          <select
            id="ttl-unit"
            className={selectClass}
            value={value.customUnit}
            onChange={(e) => onChange({ customUnit: e.target.value as TtlUnit })}
          >
            {(Object.keys(TTL_UNITS) as TtlUnit[]).map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
        </div>
      )}
      {error ? (
        <FieldError id="ttl-error" message={error} />
      ) : (
        <p id="ttl-hint" className="text-xs text-slate-500 dark:text-slate-400">
          Long enough to finish the install; unused tokens simply expire. At most 30 days.
        </p>
      )}
    </fieldset>
  );
}
