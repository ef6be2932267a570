import "server-only";
import { ROLES, type Role } from "@/lib/domain/roles";
import { matchesSelector } from "@/lib/domain/selector";
import { matchedTerms, storedScope } from "@/lib/domain/teams";
import { db } from "@/lib/server/db/client";

/** The teams whose scope matches these labels, with the matching terms and their members by role (a cluster page's "who can act"). */
export async function teamsSeeing(labels: Record<string, string>) {
  const teams = await db().team.findMany({
    select: { id: true, name: true, selector: true, members: { select: { role: true } } },
    orderBy: { name: "asc" },
  });
  return teams.flatMap((t) => {
    const selector = storedScope(t.selector);
    if (!selector || !matchesSelector(labels, selector)) return [];
    const members = Object.fromEntries(ROLES.map((r) => [r, 0])) as Record<Role, number>;
    for (const m of t.members) if (m.role in members) members[m.role as Role]++;
    return [{ id: t.id, name: t.name, selector: t.selector, matched: matchedTerms(selector, labels), members }];
  });
}
