"use client";

import { useId } from "react";
import { textareaClass } from "./reason-dialog";

/** A monospace JSON editor with its problems listed under it (checked as you type). */
export function JsonField({
  label,
  value,
  onChange,
  problems,
  hint,
  rows = 12,
}: {
  label: string;
  value: string;
  onChange: (text: string) => void;
  problems: string[];
  hint?: string;
  rows?: number;
}) {
  const id = useId();
  const invalid = problems.length > 0;
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <textarea
        id={id}
        rows={rows}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid || undefined}
        aria-describedby={`${id}-status`}
        className={`${textareaClass} resize-y font-mono text-xs leading-relaxed`}
      />
      <div id={`${id}-status`} aria-live="polite">
        {invalid ? (
          <ul className="space-y-0.5 text-xs text-rose-600 dark:text-rose-400">
            {problems.slice(0, 6).map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        ) : (
          hint && <p className="text-xs text-slate-500 dark:text-slate-400">{hint}</p>
        )}
      </div>
    </div>
  );
}
