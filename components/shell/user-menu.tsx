"use client";

import Link from "next/link";
import { signOut } from "next-auth/react";
import { useEffect, useRef, useState } from "react";

export function UserMenu({ email, role }: { email: string; role: string }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const first = useRef<HTMLAnchorElement>(null);
  // The menu's first item takes focus as it opens (React's autoFocus reaches form controls only, not links).
  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === "Escape" : !ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("mousedown", close);
      document.removeEventListener("keydown", close);
    };
  }, [open]);
  return (
    <div ref={ref} className="relative">
      <button
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className="flex items-center gap-2 rounded-md px-2 py-1.5 text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
      >
        <span
          className="flex h-7 w-7 items-center justify-center rounded-full bg-sky-700 text-xs font-semibold text-white"
          aria-hidden
        >
          {email.slice(0, 1).toUpperCase()}
        </span>
        {/* The name is the visible text (email, role) after "Account:", so speech input matches what is seen. */}
        <span className="sr-only">Account: </span>
        <span className="hidden max-w-48 truncate sm:inline">{email}</span>
        <span className="sr-only sm:hidden">{email} </span>
        <span
          className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300"
          data-testid="user-role"
        >
          {role}
        </span>
      </button>
      {open && (
        <div
          role="menu"
          className="absolute right-0 z-20 mt-1 w-56 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <p className="px-3 py-2 text-xs text-slate-500 dark:text-slate-400">
            Signed in as <span className="font-medium text-slate-700 dark:text-slate-200">{email}</span> ({role})
          </p>
          {/* What the signed-in person can see and do, and why: open to everyone, whatever their role. */}
          <Link
            ref={first}
            role="menuitem"
            href="/access"
            onClick={() => setOpen(false)}
            className="block w-full rounded px-3 py-2 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
          >
            Your access
          </Link>
          <button
            role="menuitem"
            type="button"
            onClick={() => void signOut({ callbackUrl: "/login" })}
            className="w-full rounded px-3 py-2 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
          >
            Sign out
          </button>
        </div>
      )}
    </div>
  );
}
