import { z } from "zod";
import { hasRole, ROLES, type Role } from "@/lib/domain/roles";
import type { RouteContract } from "./route";

// What each role allows, in plain words, read from the route declarations themselves (the same
// ones the authorization step enforces), so the explanation cannot drift from the rules: a new
// route, or one whose role or scope changes, changes what a person's access page says.

/** One thing the API lets a role do: the route, its area, and its summary in plain words. */
export const roleActionSchema = z.object({
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
  path: z.string(),
  /** the console area, from the path's first segment after /api/v1 */
  area: z.string(),
  /** the route's summary without its details (parentheses, codes, later sentences) */
  does: z.string(),
  /** whether it only reads */
  reads: z.boolean(),
  /** the lowest role that reaches it */
  role: z.enum(ROLES),
  /** whether a team role reaches it (on the team's clusters and its own objects); false: fleet roles only */
  teams: z.boolean(),
});
export type RoleAction = z.infer<typeof roleActionSchema>;

/** Area names whose spelling is not their path segment's (the grouping itself is the path's). */
const AREA_SPELLING: Record<string, string> = { ca: "Fleet CA", clusterprofiles: "ClusterProfiles", me: "Your access" };

export function areaOf(path: string): string {
  const segment = path.replace(/^\/api\/v1\/?/, "").split("/")[0] ?? "";
  const words = segment.replace(/-/g, " ");
  return AREA_SPELLING[segment] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A summary's first statement: backticks, parenthesised details and whatever follows the first
 * sentence or semicolon left out ("Mint a registration token (shown once); with `clusterId` ..."
 * reads "Mint a registration token").
 */
export function plainSummary(summary: string): string {
  let text = summary.replace(/`/g, "");
  for (let before = ""; before !== text;) {
    before = text;
    text = text.replace(/\s*\([^()]*\)/g, "");
  }
  const first = text.split(/;\s|\.\s/)[0] ?? text;
  return first.trim().replace(/\.$/, "");
}

export function roleAction(c: RouteContract): RoleAction {
  return {
    method: c.method,
    path: c.path,
    area: areaOf(c.path),
    does: plainSummary(c.summary),
    reads: c.method === "GET",
    role: c.role,
    teams: c.scope !== "fleet",
  };
}

/** Every declared route as a role action, by area then path. */
export function roleActions(routes: readonly RouteContract[]): RoleAction[] {
  return routes
    .map(roleAction)
    .sort((a, b) => a.area.localeCompare(b.area) || a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

/** What `role` reaches: held across the fleet (`fleet`), everything at or below it; held in a team, what teams reach. */
export function reachOf(actions: readonly RoleAction[], role: Role, through: "fleet" | "team"): RoleAction[] {
  return actions.filter((a) => hasRole(role, a.role) && (through === "fleet" || a.teams));
}

/** Actions grouped by area, in the actions' order. */
export function byArea(actions: readonly RoleAction[]): { area: string; actions: RoleAction[] }[] {
  const areas = new Map<string, RoleAction[]>();
  for (const a of actions) areas.set(a.area, [...(areas.get(a.area) ?? []), a]);
  return [...areas].map(([area, list]) => ({ area, actions: list }));
}
