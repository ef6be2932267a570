// A label change applied to many clusters at once: what it does to each cluster, what
// it would do in sum (the preview), and whether it is allowed. Pure: the server applies it, the
// console shows its preview, and the unit tests read it.
import { labelKeyProblem, labelValue, labelValueProblem, missingRequiredLabels, type Labels } from "./labels";

/** `set` adds or changes keys; `remove` drops keys. A key may not be in both. */
export type LabelChange = { set: Labels; remove: string[] };

/** A cluster's labels after the change. Keys are users': own properties only. */
export function applyLabelChange(labels: Labels, change: LabelChange): Labels {
  const out: Labels = {};
  for (const [k, v] of Object.entries(labels)) if (!change.remove.includes(k)) out[k] = v;
  for (const [k, v] of Object.entries(change.set)) out[k] = v;
  return out;
}

/**
 * Why a change is refused before looking at any cluster, or null: `invalid` for a malformed
 * change, `required` for one that removes (or empties) a required label on every cluster it touches.
 */
export function labelChangeProblem(
  change: LabelChange,
  requiredLabels: readonly string[],
): { kind: "invalid" | "required"; message: string; keys: string[] } | null {
  const both = change.remove.filter((k) => Object.hasOwn(change.set, k));
  if (both.length) return { kind: "invalid", message: `${both.join(", ")} cannot be both set and removed`, keys: both };
  if (!change.remove.length && !Object.keys(change.set).length)
    return { kind: "invalid", message: "name labels to set or remove", keys: [] };
  // The single-cluster rule: a required label is never missing or empty after an edit.
  const emptied = missingRequiredLabels(
    applyLabelChange(Object.fromEntries(requiredLabels.map((k) => [k, "x"])), change),
    requiredLabels,
  );
  if (emptied.length)
    return { kind: "required", message: `required labels cannot be removed or emptied: ${emptied.join(", ")}`, keys: emptied };
  return null;
}

export type ClusterLabels = { id: string; name: string; labels: Labels };
export type LabelChangeRow = { id: string; name: string; before: Labels; after: Labels };

export type LabelChangeSummary = {
  /** clusters selected */
  matched: number;
  /** clusters whose labels change */
  changed: number;
  unchanged: number;
  /** "N clusters gain key=value" */
  gains: { key: string; value: string; count: number }[];
  /** "M clusters change key from a to b" */
  changes: { key: string; from: string; to: string; count: number }[];
  /** "K clusters lose key" */
  removals: { key: string; count: number }[];
};

export type LabelChangePlan = {
  summary: LabelChangeSummary;
  /** the clusters that change, with their labels before and after */
  rows: LabelChangeRow[];
  /**
   * Clusters the change would leave without a required label they have now (the same rule as the
   * single-cluster edit, lib/domain/labels.ts `missingRequiredLabels`). A cluster that already
   * lacks one is not blocked for it: the change does not make it worse.
   */
  blocked: { id: string; name: string; missing: string[] }[];
};

function bump<T extends object>(map: Map<string, T & { count: number }>, id: string, make: () => T) {
  const found = map.get(id);
  if (found) found.count++;
  else map.set(id, { ...make(), count: 1 });
}

export function planLabelChange(
  clusters: readonly ClusterLabels[],
  change: LabelChange,
  requiredLabels: readonly string[],
): LabelChangePlan {
  const gains = new Map<string, { key: string; value: string; count: number }>();
  const changes = new Map<string, { key: string; from: string; to: string; count: number }>();
  const removals = new Map<string, { key: string; count: number }>();
  const rows: LabelChangeRow[] = [];
  const blocked: LabelChangePlan["blocked"] = [];
  for (const c of clusters) {
    const after = applyLabelChange(c.labels, change);
    const missingBefore = new Set(missingRequiredLabels(c.labels, requiredLabels));
    const newlyMissing = missingRequiredLabels(after, requiredLabels).filter((k) => !missingBefore.has(k));
    if (newlyMissing.length) blocked.push({ id: c.id, name: c.name, missing: newlyMissing });
    let differs = false;
    for (const [key, value] of Object.entries(change.set)) {
      const was = labelValue(c.labels, key);
      if (was === undefined) bump(gains, JSON.stringify([key, value]), () => ({ key, value }));
      else if (was !== value) bump(changes, JSON.stringify([key, was, value]), () => ({ key, from: was, to: value }));
      else continue;
      differs = true;
    }
    for (const key of change.remove) {
      if (labelValue(c.labels, key) === undefined) continue;
      bump(removals, key, () => ({ key }));
      differs = true;
    }
    if (differs) rows.push({ id: c.id, name: c.name, before: c.labels, after });
  }
  return {
    summary: {
      matched: clusters.length,
      changed: rows.length,
      unchanged: clusters.length - rows.length,
      gains: [...gains.values()],
      changes: [...changes.values()],
      removals: [...removals.values()],
    },
    rows,
    blocked,
  };
}

/**
 * A change as typed: "tier=gold, team=db" to set and "legacy, foo" to remove. Problems name the
 * offending entry; keys and values are checked with the label rules.
 */
export function parseLabelChange(setText: string, removeText: string): { change: LabelChange; problems: string[] } {
  const problems: string[] = [];
  const set: Labels = {};
  for (const pair of setText
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const i = pair.indexOf("=");
    if (i <= 0) {
      problems.push(`"${pair}" is not key=value`);
      continue;
    }
    const key = pair.slice(0, i).trim();
    const value = pair.slice(i + 1).trim();
    const problem = labelKeyProblem(key) ?? labelValueProblem(value);
    if (problem) problems.push(`${key}: ${problem}`);
    else set[key] = value;
  }
  const remove = removeText
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  for (const key of remove) {
    const problem = labelKeyProblem(key);
    if (problem) problems.push(`${key}: ${problem}`);
  }
  return { change: { set, remove: [...new Set(remove)] }, problems };
}
