"use client";

import { labelValueProblem } from "@/lib/domain/labels";

/**
 * Values as chips: Enter or comma adds the typed value, Backspace on an empty input removes the
 * last chip. The typed text stays in the parent's draft, so submitting does not lose it.
 */
export function LabelValuesInput({
  id,
  label,
  values,
  pending,
  onChange,
  invalid,
  describedBy,
}: {
  id: string;
  label: string;
  values: string[];
  pending: string;
  onChange: (next: { values: string[]; pending: string }) => void;
  invalid?: boolean;
  describedBy?: string;
}) {
  const commit = (text: string) => {
    const parts = text
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    // An invalid value stays in the input (with the row's error shown) instead of becoming a chip.
    const good = parts.filter((v) => !labelValueProblem(v) && !values.includes(v));
    const bad = parts.filter((v) => labelValueProblem(v));
    onChange({ values: [...values, ...new Set(good)], pending: bad.join(",") });
  };
  return (
    <div
      className={`flex min-h-9 flex-wrap items-center gap-1 rounded-md border bg-white px-1.5 py-1 shadow-sm focus-within:border-sky-500 dark:bg-slate-950 ${
        invalid ? "border-rose-500" : "border-slate-300 dark:border-slate-700"
      }`}
    >
      {values.map((v) => (
        <span
          key={v}
          className="inline-flex items-center gap-0.5 rounded bg-sky-50 py-0.5 pr-0.5 pl-1.5 font-mono text-xs text-sky-800 ring-1 ring-sky-200 ring-inset dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-900"
        >
          {v}
          <button
            type="button"
            aria-label={`Remove value ${v}`}
            className="rounded px-1 text-sky-700 hover:bg-sky-100 dark:text-sky-300 dark:hover:bg-sky-900"
            onClick={() => onChange({ values: values.filter((x) => x !== v), pending })}
          >
            ×
          </button>
        </span>
      ))}
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <input
        id={id}
        className="h-7 min-w-24 flex-1 bg-transparent px-1 font-mono text-sm outline-none placeholder:font-sans placeholder:text-slate-400"
        placeholder={values.length ? "add another…" : "type a value, Enter to add"}
        value={pending}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => {
          const text = e.target.value;
          if (text.includes(",")) commit(text);
          else onChange({ values, pending: text });
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            // Enter adds a chip; it must not submit the whole form.
            e.preventDefault();
            if (pending.trim()) commit(pending);
          } else if (e.key === "Backspace" && pending === "" && values.length) {
            onChange({ values: values.slice(0, -1), pending: "" });
          }
        }}
        onBlur={() => pending.trim() && commit(pending)}
      />
    </div>
  );
}
