"use client";

import { useEffect, useRef, type ReactNode } from "react";

/**
 * A modal on the native <dialog>: focus is trapped and Escape closes it, by the browser.
 * Render it only while open (`open` is for the first paint); `onClose` fires on Escape too.
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
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby="dialog-title"
      className="m-auto w-full max-w-lg rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="p-6">
        <h2 id="dialog-title" className="text-base font-semibold">
          {title}
        </h2>
        {description && <div className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</div>}
        <div className="mt-4">{children}</div>
      </div>
    </dialog>
  );
}
