import "server-only";
import { storedScope } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import type { Db, Tx } from "@/lib/server/db/client";

/** Every label key some team's scope reads. */
export async function scopeKeys(client: Db | Tx): Promise<Set<string>> {
  const teams = await client.team.findMany({ select: { selector: true } });
  const keys = new Set<string>();
  for (const t of teams) for (const r of storedScope(t.selector) ?? []) keys.add(r.key);
  return keys;
}

export type LabelChange = { name: string; before: Record<string, string>; after: Record<string, string> };

/**
 * For a change made through a team role: refuses the whole request when it would add, change or
 * remove a label any team's scope reads (which would move a cluster into or out of a scope),
 * naming the clusters and keys.
 */
export async function refuseScopeKeyChanges(client: Db | Tx, changes: readonly LabelChange[]): Promise<void> {
  const locked = await scopeKeys(client);
  if (!locked.size) return;
  const offending = changes.flatMap(({ name, before, after }) => {
    const keys = [...locked].filter(
      (k) => Object.hasOwn(before, k) !== Object.hasOwn(after, k) || (Object.hasOwn(before, k) && before[k] !== after[k]),
    );
    return keys.length ? [{ cluster: name, keys }] : [];
  });
  if (!offending.length) return;
  const keys = [...new Set(offending.flatMap((o) => o.keys))].sort();
  throw new ApiError(
    "scope_label_locked",
    `${keys.join(", ")} ${keys.length === 1 ? "is a label" : "are labels"} a team's scope reads: changing ${keys.length === 1 ? "it" : "them"} would move ${
      offending.length === 1 ? `cluster ${offending[0]!.cluster}` : `${offending.length} clusters`
    } between teams. Ask someone with a fleet role.`,
    { clusters: offending },
  );
}
