"use client";

import { useEffect, useId, useState } from "react";
import { inputClass } from "@/components/ui/field";

/**
 * A text input that commits after a pause in typing (or on Enter), and only when `validate`
 * finds no problem; the problem is shown under the field as the user types. A change of
 * `value` from outside (the back button, "Clear filters") replaces what is typed.
 */
export function DebouncedInput({
  label,
  value,
  onCommit,
  validate,
  placeholder,
  hint,
  delayMs = 300,
  mono,
  type = "text",
}: {
  label: string;
  value: string;
  onCommit: (value: string) => void;
  validate?: (value: string) => string | null;
  placeholder?: string;
  hint?: string;
  delayMs?: number;
  mono?: boolean;
  type?: "text" | "search";
}) {
  const id = useId();
  const [draft, setDraft] = useState(value);
  const [synced, setSynced] = useState(value);
  if (value !== synced) {
    setSynced(value);
    setDraft(value);
  }
  const problem = validate ? validate(draft) : null;

  const commit = (text: string) => {
    if (problem || text === synced) return;
    setSynced(text);
    onCommit(text);
  };

  useEffect(() => {
    if (draft === synced || problem) return;
    const timer = setTimeout(() => {
      setSynced(draft);
      onCommit(draft);
    }, delayMs);
    return () => clearTimeout(timer);
  }, [draft, synced, problem, delayMs, onCommit]);

  const describedBy = problem ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        type={type}
        value={draft}
        placeholder={placeholder}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={problem ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            commit(draft);
          }
        }}
        className={`${inputClass} ${mono ? "font-mono" : ""}`}
      />
      {problem ? (
        <p id={`${id}-error`} className="text-xs text-rose-600 dark:text-rose-400">
          {problem}
        </p>
      ) : hint ? (
        <p id={`${id}-hint`} className="truncate text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
