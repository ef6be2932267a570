"use client";

import { useRef, useState, type InputHTMLAttributes, type KeyboardEvent } from "react";
import { applySuggestion, selectorSuggestions } from "@/lib/domain/label-summary";
import { useLabelSummary } from "@/lib/client/labels";
import { useCombobox } from "@/components/ui/combobox";

type Props = Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange"> & {
  value: string;
  onValueChange: (value: string) => void;
};

const clusters = (n: number) => `${n.toLocaleString("en-US")} cluster${n === 1 ? "" : "s"}`;

/**
 * A label selector input that suggests the fleet's label keys, then the chosen key's values, each
 * with how many clusters carry it (GET /api/v1/labels), as an ARIA combobox. A drop-in for the
 * `<input>` of a selector field: the caller's label, hint and error ids stay as they are.
 */
export function SelectorInput({ value, onValueChange, onKeyDown, onBlur, className, ...input }: Props) {
  const labels = useLabelSummary();
  const ref = useRef<HTMLInputElement>(null);
  const [caret, setCaret] = useState(value.length);
  const at = Math.min(caret, value.length);
  const suggestions = labels.data ? selectorSuggestions(value, at, labels.data.keys) : null;
  const items = suggestions?.items ?? [];

  const combo = useCombobox({
    label: suggestions?.kind === "value" ? `Values of ${suggestions.key}` : "Label keys",
    options: items.map((item) => ({ id: item.text, label: item.text, detail: clusters(item.count) })),
    onPick: (i) => {
      if (!suggestions) return;
      const next = applySuggestion(value, suggestions, items[i]!.text);
      onValueChange(next.text);
      setCaret(next.caret);
      // After React has put the new value in the input.
      requestAnimationFrame(() => ref.current?.setSelectionRange(next.caret, next.caret));
    },
  });
  const trackCaret = (el: HTMLInputElement) => setCaret(el.selectionStart ?? el.value.length);

  return (
    <div className="relative">
      <input
        ref={ref}
        {...input}
        {...combo.inputProps}
        value={value}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        className={className}
        onChange={(e) => {
          onValueChange(e.target.value);
          trackCaret(e.currentTarget);
        }}
        onSelect={(e) => trackCaret(e.currentTarget)}
        onBlur={(e) => {
          combo.inputProps.onBlur();
          onBlur?.(e);
        }}
        onKeyDown={(e: KeyboardEvent<HTMLInputElement>) => {
          combo.inputProps.onKeyDown(e);
          if (!e.defaultPrevented) onKeyDown?.(e);
        }}
      />
      {combo.popup}
    </div>
  );
}
