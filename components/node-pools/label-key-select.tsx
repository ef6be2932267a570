"use client";

import { useId, useState } from "react";
import { inputClass } from "@/components/ui/field";

const OTHER = "__other__";
const KEY = /^[A-Za-z0-9./_-]{1,316}$/;

/** Picks a label key to group by: the keys seen on clusters, or any other typed in. */
export function LabelKeySelect({ keys, value, onChange }: { keys: string[]; value: string; onChange: (key: string) => void }) {
  const id = useId();
  const [typing, setTyping] = useState(!keys.includes(value));
  const [text, setText] = useState(keys.includes(value) ? "" : value);
  const valid = KEY.test(text.trim());
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="text-sm whitespace-nowrap text-slate-600 dark:text-slate-400">
        Group by
      </label>
      <select
        id={id}
        className={`${inputClass} h-8 w-44`}
        value={typing ? OTHER : value}
        onChange={(e) => {
          if (e.target.value === OTHER) setTyping(true);
          else {
            setTyping(false);
            onChange(e.target.value);
          }
        }}
      >
        {keys.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
        <option value={OTHER}>Other label key…</option>
      </select>
      {typing && (
        <form
          className="flex items-center gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (valid) onChange(text.trim());
          }}
        >
          <label htmlFor={`${id}-other`} className="sr-only">
            Label key
          </label>
          <input
            id={`${id}-other`}
            className={`${inputClass} h-8 w-48 font-mono`}
            placeholder="topology.kubernetes.io/zone"
            value={text}
            autoFocus
            aria-invalid={text && !valid ? true : undefined}
            onChange={(e) => setText(e.target.value)}
          />
          <button
            type="submit"
            disabled={!valid}
            className="h-8 rounded-md border border-slate-300 px-3 text-sm font-medium hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800"
          >
            Apply
          </button>
        </form>
      )}
    </div>
  );
}
