"use client";

import { useCallback, useId, useLayoutEffect, useRef, useState, type ReactNode } from "react";

/**
 * Text that may be cut short (an ellipsis after `lines` lines), with its whole text in a tooltip
 * on hover and on keyboard focus. A `title` alone shows neither on focus nor on touch. The
 * trigger takes focus only when there is more to read (the text is cut, or `tip` adds to it),
 * so a page of rows does not gain a tab stop per cell. Escape closes the tip; it is placed
 * fixed to the viewport so a table's scroll box cannot clip it.
 */
export function HoverTip({
  children,
  text,
  tip,
  lines = 1,
  className = "",
  testId,
}: {
  children: ReactNode;
  /** the whole text, shown in the tip when the visible one is cut */
  text: string;
  /** more to say than the text (always shown in the tip) */
  tip?: string;
  lines?: 1 | 2 | 3 | 4;
  className?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLSpanElement>(null);
  const id = useId();
  const [cut, setCut] = useState(false);
  const [at, setAt] = useState<{ left: number; top: number } | null>(null);

  const measure = useCallback(() => {
    const el = ref.current;
    if (el) setCut(el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
  }, []);
  useLayoutEffect(() => {
    measure();
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [measure, text]);

  const body = [cut || !tip ? text : null, tip].filter(Boolean).join("\n");
  const hasTip = cut || !!tip;
  const open = () => {
    const r = ref.current?.getBoundingClientRect();
    if (r && hasTip) setAt({ left: Math.max(8, Math.min(r.left, window.innerWidth - 328)), top: r.bottom + 4 });
  };
  const close = () => setAt(null);
  // One line: a block with text-overflow; more: a line clamp (its own display, so no `block`).
  const clamp = { 1: "block truncate", 2: "line-clamp-2", 3: "line-clamp-3", 4: "line-clamp-4" }[lines];

  return (
    <>
      <span
        ref={ref}
        className={`min-w-0 max-w-full [overflow-wrap:anywhere] ${clamp} ${hasTip ? "cursor-help rounded focus-visible:outline-2 focus-visible:outline-sky-600" : ""} ${className}`}
        tabIndex={hasTip ? 0 : undefined}
        aria-describedby={at ? id : undefined}
        data-testid={testId}
        data-hover-tip=""
        data-cut={cut || undefined}
        onMouseEnter={open}
        onMouseLeave={close}
        onFocus={open}
        onBlur={close}
        onKeyDown={(e) => {
          if (e.key === "Escape" && at) {
            e.stopPropagation();
            close();
          }
        }}
      >
        {children}
      </span>
      {at && (
        <span
          id={id}
          role="tooltip"
          style={{ left: at.left, top: at.top }}
          className="pointer-events-none fixed z-50 block max-w-80 whitespace-pre-line rounded-md bg-slate-900 px-2.5 py-1.5 text-xs font-normal normal-case tracking-normal text-white shadow-lg [overflow-wrap:anywhere] dark:bg-slate-100 dark:text-slate-900"
        >
          {body}
        </span>
      )}
    </>
  );
}
