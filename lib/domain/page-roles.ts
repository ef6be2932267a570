import type { Role } from "./roles";
import { hasRole } from "./roles";
import { highestRole, type Access } from "./teams";

// Every console page, the role it needs and its navigation entry, written once. The page opens as
// its own entry (`openPage("/audit")`: the role, then its first data), the console layout checks the requested path's role
// before anything streams (so a refused page answers HTTP 403 rather than a 200 whose body says
// forbidden) and builds the navigation from the entries that have one; a test holds the table to
// the pages under app/(console). The API enforces its own roles regardless.

/** A navigation entry; `badge` names a live count shown beside it. */
export type NavEntry = { label: string; badge?: "pendingApprovals" };
/**
 * `teams`: the page also opens for whoever holds `role` only in a team, and shows only their
 * teams' clusters (the API bounds what it answers the same way); other pages need a fleet role.
 * `everyone`: it opens for whoever is signed in, even with no role at all (it says what they lack).
 */
export type ConsolePage = {
  readonly route: string;
  readonly role: Role;
  readonly nav?: NavEntry;
  readonly teams?: true;
  readonly everyone?: true;
};

/** In navigation order. `[name]` is a path segment, as in the app folder. */
export const CONSOLE_PAGES = [
  // For team roles, their teams' clusters only (the API bounds every figure).
  { route: "/", role: "viewer", nav: { label: "Overview" }, teams: true },
  { route: "/clusters", role: "viewer", nav: { label: "Clusters" }, teams: true },
  { route: "/clusters/[id]", role: "viewer", teams: true },
  // Watching a deregistration is for everyone; its steps are the API's to refuse.
  { route: "/clusters/[id]/deregister", role: "viewer", teams: true },
  { route: "/groups", role: "viewer", nav: { label: "Groups" } },
  // The change gate a pipeline asks (GET /api/v1/gate?group=), for one group.
  { route: "/groups/[name]/gate", role: "viewer" },
  // A team's members see its tokens and their attempts; its admins mint and revoke them.
  { route: "/tokens", role: "viewer", nav: { label: "Tokens" }, teams: true },
  // Approving lets a cluster in: the queue is for those who may decide (a team operator: the
  // requests whose labels their teams' scopes take in).
  {
    route: "/registration-requests",
    role: "operator",
    nav: { label: "Approvals", badge: "pendingApprovals" },
    teams: true,
  },
  // The management clusters the fleet imports from, and each CAPI Cluster's import step: a fleet's
  // plumbing, so fleet roles only; viewers read, operators retry a failed step, admins edit sources.
  { route: "/cluster-api", role: "viewer", nav: { label: "Cluster API" } },
  { route: "/policies", role: "viewer", nav: { label: "Policies" } },
  // A team member sees and plans their teams' rollouts (within their scopes; the API bounds them).
  { route: "/rollouts", role: "viewer", nav: { label: "Rollouts" }, teams: true },
  // Planning a rollout starts it; watching rollouts is for everyone.
  { route: "/rollouts/new", role: "operator", teams: true },
  { route: "/rollouts/[id]", role: "viewer", teams: true },
  { route: "/versions", role: "viewer", nav: { label: "Versions" }, teams: true },
  { route: "/node-pools", role: "viewer", nav: { label: "Node pools" }, teams: true },
  // A team admin manages their teams' subscriptions here (a fleet admin, every one, as in Settings).
  { route: "/webhooks", role: "admin", nav: { label: "Webhooks" }, teams: true },
  // A team operator reads what happened to their clusters and their team (the API bounds it).
  { route: "/audit", role: "operator", nav: { label: "Audit log" }, teams: true },
  // Everyone reads their teams; a fleet admin shapes them, a team's admins manage its members.
  { route: "/teams", role: "viewer", nav: { label: "Teams" }, teams: true },
  { route: "/settings", role: "admin", nav: { label: "Settings" } },
  // What the signed-in person can see and do, and why (from the user menu): someone without any
  // role learns it here rather than from a 403.
  { route: "/access", role: "viewer", teams: true, everyone: true },
] as const satisfies readonly ConsolePage[];

export type ConsoleRoute = (typeof CONSOLE_PAGES)[number]["route"];

const segments = (path: string) => path.split("/").filter(Boolean);

/**
 * How closely `route` names `pathname`, or -1 when it is not a segment prefix of it: the longer
 * route first, then the one with more literal segments (`/rollouts/new` before `/rollouts/[id]`).
 */
function matchScore(route: string, pathname: string[]): number {
  const parts = segments(route);
  if (parts.length > pathname.length) return -1;
  let literals = 0;
  for (const [i, part] of parts.entries()) {
    if (part === pathname[i]) literals++;
    else if (!part.startsWith("[")) return -1;
  }
  return parts.length * 100 + literals;
}

/** The page a path belongs to: its own entry, else the closest enclosing one (a deeper unknown path). */
export function consolePageOf(pathname: string): ConsolePage {
  const path = segments(pathname);
  let best: ConsolePage = CONSOLE_PAGES[0];
  let bestScore = 0;
  for (const page of CONSOLE_PAGES) {
    const score = matchScore(page.route, path);
    if (score > bestScore) [best, bestScore] = [page, score];
  }
  return best;
}

/** The role a requested path needs. */
export function pageRole(pathname: string): Role {
  return consolePageOf(pathname).role;
}

/** The entry of a page, by its route. */
export function pageOf(route: ConsoleRoute): ConsolePage {
  return CONSOLE_PAGES.find((p) => p.route === route)!;
}

/** May a caller with this access open the page: a fleet role at its role, or, on a team page, that role in a team (or anyone, on an `everyone` page). */
export function mayOpen(page: ConsolePage, access: Access): boolean {
  if (page.everyone || hasRole(access.fleetRole, page.role)) return true;
  return !!page.teams && hasRole(highestRole({ fleetRole: null, teams: access.teams }), page.role);
}

/** The navigation a caller sees: the entries with a nav item whose page they may open. */
export function navItems(access: Access): (NavEntry & { href: string })[] {
  return CONSOLE_PAGES.flatMap((p: ConsolePage) => (p.nav && mayOpen(p, access) ? [{ href: p.route, ...p.nav }] : []));
}
