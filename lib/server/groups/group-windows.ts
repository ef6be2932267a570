import "server-only";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { upgradeWindowsSchema, type WindowPolicy } from "@/lib/domain/upgrade-windows";
import { db } from "@/lib/server/db/client";
import { usableGroupSelector, type StoredGroup } from "./group-selector";

/** A group's upgrade windows as stored; a row that no longer parses counts as no windows. */
export function storedWindows(g: { upgradeWindows: string | null; upgradeTimeZone: string | null }): WindowPolicy {
  if (!g.upgradeWindows) return { windows: null, timeZone: g.upgradeTimeZone };
  let json: unknown;
  try {
    json = JSON.parse(g.upgradeWindows);
  } catch {
    json = null;
  }
  const parsed = upgradeWindowsSchema.safeParse(json);
  return { windows: parsed.success && parsed.data.length ? parsed.data : null, timeZone: g.upgradeTimeZone };
}

export type WindowGroup = { name: string; selector: Selector; policy: WindowPolicy };

/** Every group that has upgrade windows, with its selector parsed (invalid selectors match nothing). */
export async function groupsWithWindows(): Promise<WindowGroup[]> {
  const rows = await db().clusterGroup.findMany({
    where: { upgradeWindows: { not: null } },
    select: { id: true, name: true, selector: true, upgradeWindows: true, upgradeTimeZone: true },
    orderBy: { name: "asc" },
  });
  return rows.flatMap((g) => {
    const selector = usableGroupSelector(g satisfies StoredGroup);
    const policy = storedWindows(g);
    return selector && policy.windows ? [{ name: g.name, selector, policy }] : [];
  });
}

/** The windowed groups a cluster with these labels is in. */
export function clusterWindowGroups(labels: Record<string, string>, groups: WindowGroup[]): WindowGroup[] {
  return groups.filter((g) => matchesSelector(labels, g.selector));
}
