"use client";

import { useEffect, useId, useRef, useState, type ReactNode, type RefObject } from "react";
import { MAIN_CONTENT_ID } from "./skip-link";

/**
 * A modal on the native <dialog>: focus is trapped and Escape closes it, by the browser.
 * Render it only while open (`open` is for the first paint); `onClose` fires on Escape too.
 * When it goes away, focus returns to the element that had it when the dialog opened (the
 * button that opened it), or to the page's main content if that element is gone, never to <body>.
 */
export function Dialog({
  title,
  description,
  onClose,
  children,
}: {
  title: string;
  description?: ReactNode;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useModalDialog();
  const titleId = useId();
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby={titleId}
      className="m-auto w-[calc(100%-2rem)] max-w-lg rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="p-4 sm:p-6">
        <h2 id={titleId} className="text-base font-semibold">
          {title}
        </h2>
        {description && <div className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</div>}
        <div className="mt-4">{children}</div>
      </div>
    </dialog>
  );
}

/**
 * A native <dialog> shown modally while the component is mounted. When it goes away, focus returns
 * to the element that had it when it opened, or to the page's main content if that is gone (the
 * dialogs and the side panel share this).
 */
export function useModalDialog(): RefObject<HTMLDialogElement | null> {
  const ref = useRef<HTMLDialogElement>(null);
  // Read while rendering, before the dialog takes the focus: this is the opener.
  const [opener] = useState(() => (typeof document === "undefined" ? null : (document.activeElement as HTMLElement | null)));
  useEffect(() => {
    const el = ref.current;
    if (el && !el.open) el.showModal();
    return () => {
      el?.close();
      const target = opener?.isConnected && opener !== document.body ? opener : document.getElementById(MAIN_CONTENT_ID);
      target?.focus();
    };
  }, [opener]);
  return ref;
}
