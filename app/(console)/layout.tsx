import type { ReactNode } from "react";
import Link from "next/link";
import { headers } from "next/headers";
import { pageRole } from "@/lib/domain/page-roles";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { NavLinks, type NavItem } from "@/components/shell/nav-links";
import { UserMenu } from "@/components/shell/user-menu";
import { ThemeToggle } from "@/components/shell/theme-toggle";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  // The section's role is checked here, before the page's loading state streams, so a refused
  // page answers 403 (the page checks again for client-side navigation).
  const principal = await requirePage(pageRole((await headers()).get("x-console-path") ?? "/"));
  const items: NavItem[] = [
    { href: "/", label: "Overview" },
    { href: "/clusters", label: "Clusters" },
    { href: "/groups", label: "Groups" },
    { href: "/tokens", label: "Tokens" },
    { href: "/policies", label: "Policies" },
    { href: "/rollouts", label: "Rollouts" },
    { href: "/versions", label: "Versions" },
    { href: "/node-pools", label: "Node pools" },
  ];
  if (hasRole(principal.role, "operator")) items.push({ href: "/audit", label: "Audit log" });
  if (hasRole(principal.role, "admin")) items.push({ href: "/settings", label: "Settings" });
  return (
    <div className="flex min-h-screen">
      <aside className="sticky top-0 flex h-screen w-56 shrink-0 flex-col border-r border-slate-200 bg-white px-3 py-4 dark:border-slate-800 dark:bg-slate-900">
        <Link href="/" className="mb-6 flex items-center gap-2 px-3 text-base font-semibold tracking-tight">
          <span aria-hidden className="inline-block h-5 w-5 rounded bg-gradient-to-br from-sky-500 to-indigo-600" />
          Fleet Registry
        </Link>
        <NavLinks items={items} />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 items-center justify-end gap-2 border-b border-slate-200 bg-white px-6 dark:border-slate-800 dark:bg-slate-900">
          <ThemeToggle />
          <UserMenu email={principal.user?.email ?? principal.actor.label} role={principal.role} />
        </header>
        <main className="mx-auto w-full max-w-7xl flex-1 px-8 py-8">{children}</main>
      </div>
    </div>
  );
}
