"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useLiveEvents } from "@/lib/client/live-events";
import { usePendingRequestCount } from "@/lib/client/registration-requests";
import type { NavEntry } from "@/lib/domain/page-roles";

/** An entry of the console's page table (lib/domain/page-roles.ts) as a link. */
export type NavItem = NavEntry & { href: string };

export function NavLinks({ items, onNavigate }: { items: NavItem[]; onNavigate?: () => void }) {
  const pathname = usePathname();
  const router = useRouter();
  // Every page of the console is dynamic: prefetching all of them as the nav scrolls into view
  // renders each one on the server at every load, competing with the page being opened. A page is
  // prefetched on intent instead (pointer over, or keyboard focus on, its link).
  const intent = (href: string) => () => router.prefetch(href);
  return (
    <nav aria-label="Main" className="flex flex-col gap-0.5">
      {items.map((item) => {
        const active = item.href === "/" ? pathname === "/" : pathname.startsWith(item.href);
        return (
          <Link
            key={item.href}
            href={item.href}
            prefetch={false}
            onMouseEnter={intent(item.href)}
            onFocus={intent(item.href)}
            onClick={onNavigate}
            aria-current={active ? "page" : undefined}
            className={`flex items-center justify-between gap-2 rounded-md px-3 py-2 text-sm font-medium ${
              active
                ? "bg-sky-50 text-sky-800 dark:bg-sky-950 dark:text-sky-200"
                : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
            }`}
          >
            {item.label}
            {item.badge === "pendingApprovals" && <PendingApprovalsBadge />}
          </Link>
        );
      })}
    </nav>
  );
}

/** How many registrations wait for a decision, kept live by the event stream (polled while it is down). */
function PendingApprovalsBadge() {
  useLiveEvents();
  const count = usePendingRequestCount(true);
  if (!count) return null;
  return (
    <span
      data-testid="nav-badge"
      className="min-w-5 rounded-full bg-amber-500 px-1.5 text-center text-xs leading-5 font-semibold text-slate-950 tabular-nums"
    >
      {count}
      <span className="sr-only"> waiting</span>
    </span>
  );
}
