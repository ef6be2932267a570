"use client";

import { useId, useState, type KeyboardEvent, type ReactNode } from "react";

export type ComboboxOption = { id: string; label: ReactNode; detail?: ReactNode };

/**
 * The ARIA combobox pattern (list autocomplete) for a text input the caller renders: spread
 * `inputProps` on it and render `popup` after it inside a `relative` box. Typing opens the list;
 * ArrowDown/ArrowUp move the active option (aria-activedescendant, focus stays in the input),
 * Enter picks it, Escape closes the list; a pointer picks an option without taking focus. Keys the
 * list does not use are left to the caller (Enter with no active option still submits).
 */
export function useCombobox({
  options,
  label,
  onPick,
}: {
  options: readonly ComboboxOption[];
  /** the listbox's accessible name, e.g. "Label suggestions" */
  label: string;
  onPick: (index: number) => void;
}) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const shown = open && options.length > 0;
  const current = shown && active < options.length ? active : -1;
  const optionId = (i: number) => `${listId}-option-${i}`;

  const pick = (i: number) => {
    setOpen(false);
    setActive(-1);
    onPick(i);
  };

  const inputProps = {
    role: "combobox" as const,
    "aria-autocomplete": "list" as const,
    "aria-expanded": shown,
    "aria-controls": listId,
    "aria-activedescendant": current >= 0 ? optionId(current) : undefined,
    autoComplete: "off",
    onInput: () => {
      setOpen(true);
      setActive(-1);
    },
    onBlur: () => setOpen(false),
    onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        if (!options.length) return;
        e.preventDefault();
        const step = e.key === "ArrowDown" ? 1 : -1;
        setOpen(true);
        setActive(current < 0 ? (step > 0 ? 0 : options.length - 1) : (current + step + options.length) % options.length);
      } else if (e.key === "Enter" && current >= 0) {
        e.preventDefault();
        pick(current);
      } else if (e.key === "Escape" && shown) {
        // Closes the list only: a dialog around the input stays open.
        e.preventDefault();
        e.stopPropagation();
        setOpen(false);
        setActive(-1);
      }
    },
  };

  const popup: ReactNode = (
    <ul
      id={listId}
      role="listbox"
      aria-label={label}
      hidden={!shown}
      className="absolute top-full left-0 z-30 mt-1 max-h-64 w-full min-w-48 overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
    >
      {shown &&
        options.map((o, i) => (
          <li
            key={o.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === current}
            // mousedown would blur the input (closing the list) before the click lands
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => pick(i)}
            onMouseMove={() => setActive(i)}
            className={`flex cursor-pointer items-center justify-between gap-3 px-3 py-1.5 ${
              i === current ? "bg-sky-100 text-sky-900 dark:bg-sky-900/60 dark:text-sky-100" : ""
            }`}
          >
            <span className="truncate font-mono">{o.label}</span>
            {o.detail !== undefined && (
              <span className="shrink-0 text-xs text-slate-600 tabular-nums dark:text-slate-300">{o.detail}</span>
            )}
          </li>
        ))}
    </ul>
  );

  return { inputProps, popup };
}
