"use client";

import { useId, type ReactNode } from "react";
import { useModalDialog } from "./dialog";

/**
 * A side panel on the native modal <dialog>: focus moves into it and is trapped there, Escape
 * and the close button close it, and focus goes back to the control that opened it (held here:
 * a table row that re-rendered meanwhile would otherwise drop it on <body>). Render it only
 * while open; `onClose` fires however it closes.
 */
export function Drawer({ title, onClose, children }: { title: ReactNode; onClose: () => void; children: ReactNode }) {
  const ref = useModalDialog();
  const titleId = useId();
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby={titleId}
      className="ml-auto mr-0 h-dvh max-h-none w-full max-w-xl border-l border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/40 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="flex h-full flex-col">
        <header className="flex items-start justify-between gap-3 border-b border-slate-200 px-5 py-4 dark:border-slate-800">
          <h2 id={titleId} className="min-w-0 text-base font-semibold break-words">
            {title}
          </h2>
          <button
            type="button"
            onClick={() => ref.current?.close()}
            className="-m-1 rounded-md p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-100"
          >
            <span aria-hidden>✕</span>
            <span className="sr-only">Close</span>
          </button>
        </header>
        <div className="min-h-0 flex-1 overflow-y-auto px-5 py-4">{children}</div>
      </div>
    </dialog>
  );
}
