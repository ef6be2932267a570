"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { usePendingRequestCount } from "@/lib/client/registration-requests";

/** `badge` names a live count shown beside the entry (only one kind so far). */
export type NavItem = { href: string; label: string; badge?: "pendingApprovals" };

export function NavLinks({ items, onNavigate }: { items: NavItem[]; onNavigate?: () => void }) {
  const pathname = usePathname();
  const pending = usePendingRequestCount(items.some((i) => i.badge === "pendingApprovals"));
  return (
    <nav aria-label="Main" className="flex flex-col gap-0.5">
      {items.map((item) => {
        const active = item.href === "/" ? pathname === "/" : pathname.startsWith(item.href);
        const count = item.badge === "pendingApprovals" ? pending : null;
        return (
          <Link
            key={item.href}
            href={item.href}
            onClick={onNavigate}
            aria-current={active ? "page" : undefined}
            className={`flex items-center justify-between gap-2 rounded-md px-3 py-2 text-sm font-medium ${
              active
                ? "bg-sky-50 text-sky-800 dark:bg-sky-950 dark:text-sky-200"
                : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
            }`}
          >
            {item.label}
            {count ? (
              <span
                data-testid="nav-badge"
                className="min-w-5 rounded-full bg-amber-500 px-1.5 text-center text-xs leading-5 font-semibold text-slate-950 tabular-nums"
              >
                {count}
                <span className="sr-only"> waiting</span>
              </span>
            ) : null}
          </Link>
        );
      })}
    </nav>
  );
}
