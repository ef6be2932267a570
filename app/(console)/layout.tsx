import type { ReactNode } from "react";
import { headers } from "next/headers";
import { consolePageOf, navItems } from "@/lib/domain/page-roles";
import { requirePageEntry } from "@/lib/server/auth/page-auth";
import { accessOf } from "@/lib/server/auth/principal";
import { Brand } from "@/components/shell/brand";
import { NavDrawer } from "@/components/shell/nav-drawer";
import { NavLinks, type NavItem } from "@/components/shell/nav-links";
import { RouteFocus } from "@/components/shell/route-focus";
import { UserMenu } from "@/components/shell/user-menu";
import { ThemeToggle } from "@/components/shell/theme-toggle";
import { MAIN_CONTENT_ID, SkipLink } from "@/components/ui/skip-link";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  // The section's role is checked here, before the page's loading state streams, so a refused
  // page answers 403 (the page checks again for client-side navigation).
  const path = (await headers()).get("x-console-path") ?? "/";
  const principal = await requirePageEntry(consolePageOf(path), {
    // Someone without any role yet learns why on their access page rather than from a 403.
    home: path === "/" ? "/access" : undefined,
  });
  const items: NavItem[] = navItems(accessOf(principal));
  return (
    <div className="min-h-screen lg:flex">
      <SkipLink />
      <RouteFocus />
      {/* The aside stretches to the page's full height (its background with it); its content sticks. */}
      <aside
        aria-label="Sidebar"
        className="hidden w-56 shrink-0 border-r border-slate-200 bg-white lg:block dark:border-slate-800 dark:bg-slate-900"
      >
        <div className="sticky top-0 flex max-h-screen flex-col overflow-y-auto px-3 py-4">
          <Brand className="mb-6 px-3" />
          <NavLinks items={items} />
        </div>
      </aside>
      <div className="flex min-h-screen min-w-0 flex-1 flex-col">
        <header className="flex h-14 items-center gap-2 border-b border-slate-200 bg-white px-4 sm:px-6 dark:border-slate-800 dark:bg-slate-900">
          <NavDrawer items={items} />
          <Brand className="lg:hidden" />
          <div className="ml-auto flex shrink-0 items-center gap-1 sm:gap-2">
            <ThemeToggle />
            <UserMenu
              email={principal.user?.email ?? principal.actor.label}
              role={principal.role ?? (principal.teams.length ? "team member" : "no role")}
            />
          </div>
        </header>
        <main
          id={MAIN_CONTENT_ID}
          tabIndex={-1}
          className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 focus:outline-none sm:px-6 lg:px-8 lg:py-8"
        >
          {children}
        </main>
      </div>
    </div>
  );
}
