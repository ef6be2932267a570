"use client";

import { useEffect, useRef, useState } from "react";
import { usePathname } from "next/navigation";
import { Brand } from "./brand";
import { NavLinks, type NavItem } from "./nav-links";

/**
 * The navigation on narrow screens: a menu button that opens it as a drawer. The drawer is a
 * modal <dialog>, so the browser traps focus in it and closes it on Escape; it also closes on
 * navigation and on a tap outside, and focus goes back to the menu button.
 */
export function NavDrawer({ items }: { items: NavItem[] }) {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const pathname = usePathname();

  // A new page closes the drawer (render-time reset: no effect needed for derived state).
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }

  const wasOpen = useRef(false);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
    // However it closed (Escape, a link, the close button, the backdrop), focus returns to the opener.
    if (!open && wasOpen.current) button.current?.focus();
    wasOpen.current = open;
  }, [open]);

  return (
    <>
      <button
        ref={button}
        type="button"
        aria-label="Open navigation"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls="nav-drawer"
        onClick={() => setOpen(true)}
        className="-ml-1 rounded-md p-2 text-slate-700 hover:bg-slate-100 lg:hidden dark:text-slate-200 dark:hover:bg-slate-800"
      >
        <svg aria-hidden viewBox="0 0 20 20" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth="1.75">
          <path strokeLinecap="round" d="M3 5h14M3 10h14M3 15h14" />
        </svg>
      </button>
      <dialog
        ref={dialog}
        id="nav-drawer"
        aria-label="Navigation"
        // Escape: the browser closes the dialog; keep the state in step.
        onClose={() => setOpen(false)}
        // A tap on the backdrop lands on the <dialog> itself, outside its panel.
        onClick={(e) => {
          if (e.target === e.currentTarget) setOpen(false);
        }}
        className="m-0 h-full max-h-none w-72 max-w-[85vw] border-r border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/50 lg:hidden dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100"
      >
        <div className="flex h-full flex-col px-3 py-4">
          <div className="mb-6 flex items-center justify-between gap-2 pl-3">
            <Brand />
            <button
              type="button"
              aria-label="Close navigation"
              onClick={() => setOpen(false)}
              className="rounded-md p-2 text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
            >
              <svg aria-hidden viewBox="0 0 20 20" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth="1.75">
                <path strokeLinecap="round" d="M5 5l10 10M15 5L5 15" />
              </svg>
            </button>
          </div>
          {/* A tap on the current page's link does not change the path: close on any link. */}
          <NavLinks items={items} onNavigate={() => setOpen(false)} />
        </div>
      </dialog>
    </>
  );
}
