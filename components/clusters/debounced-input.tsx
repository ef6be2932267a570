"use client";

import { useEffect, useId, useState, type KeyboardEvent } from "react";
import { inputClass } from "@/components/ui/field";
import { SelectorInput } from "@/components/labels/selector-input";

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
  suggestLabels,
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
  /** suggest label keys and values as a selector is typed (a combobox) */
  suggestLabels?: boolean;
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
  const inputProps = {
    id,
    placeholder,
    spellCheck: false,
    autoComplete: "off",
    "aria-invalid": problem ? true : undefined,
    "aria-describedby": describedBy,
    onKeyDown: (e: KeyboardEvent<HTMLInputElement>) => {
      if (e.key === "Enter") {
        e.preventDefault();
        commit(draft);
      }
    },
    className: `${inputClass} ${mono ? "font-mono" : ""}`,
  };
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      {suggestLabels ? (
        <SelectorInput {...inputProps} value={draft} onValueChange={setDraft} />
      ) : (
        <input {...inputProps} type={type} value={draft} onChange={(e) => setDraft(e.target.value)} />
      )}
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
