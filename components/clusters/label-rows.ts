// The labels editor's rows and their checks, kept pure so they are unit-tested
// (tests/unit/client/label-rows.test.ts). Syntax rules come from lib/domain/labels.ts, the same
// functions the server validates with.
import { labelKeyProblem, labelValueProblem, type Labels } from "@/lib/domain/labels";

export type LabelRow = { id: string; key: string; value: string };
export type RowProblems = { key?: string; value?: string };

let nextId = 0;
export function newRow(key = "", value = ""): LabelRow {
  nextId += 1;
  return { id: `row-${nextId}`, key, value };
}

/** Rows for a label set, sorted by key; required keys the cluster lacks get an empty row to fill. */
export function rowsFromLabels(labels: Labels, required: readonly string[]): LabelRow[] {
  const rows = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => newRow(k, v));
  for (const key of required) if (!(key in labels)) rows.push(newRow(key, ""));
  return rows;
}

/** Why a row's remove button is disabled, or null when it may be removed. */
export function removalBlocked(row: LabelRow, required: readonly string[]): string | null {
  return required.includes(row.key.trim())
    ? `"${row.key.trim()}" is a required label (fleet settings): every cluster must carry it, so it cannot be removed. You can change its value.`
    : null;
}

/** Problems by row id; a row without problems is absent. A completely empty new row is not a problem. */
export function rowProblems(rows: readonly LabelRow[], required: readonly string[]): Map<string, RowProblems> {
  const problems = new Map<string, RowProblems>();
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(r.key.trim(), (seen.get(r.key.trim()) ?? 0) + 1);
  for (const r of rows) {
    const key = r.key.trim();
    const p: RowProblems = {};
    if (key === "" && r.value.trim() === "") continue;
    if (key === "") p.key = "Enter a key.";
    else {
      const keyProblem = labelKeyProblem(key);
      if (keyProblem) p.key = capitalise(keyProblem);
      else if ((seen.get(key) ?? 0) > 1) p.key = "This key is used twice.";
    }
    const valueProblem = labelValueProblem(r.value.trim());
    if (valueProblem) p.value = capitalise(valueProblem);
    else if (required.includes(key) && r.value.trim() === "") p.value = "A required label needs a value.";
    if (p.key || p.value) problems.set(r.id, p);
  }
  return problems;
}

/** The label set the rows describe (empty rows left out). */
export function labelsFromRows(rows: readonly LabelRow[]): Labels {
  const labels: Labels = {};
  for (const r of rows) {
    const key = r.key.trim();
    if (key) labels[key] = r.value.trim();
  }
  return labels;
}

export type LabelChanges = { added: string[]; removed: string[]; changed: string[] };

// Own properties only: "constructor" is a fine label key and no member of a label set.
export function labelChanges(before: Labels, after: Labels): LabelChanges {
  return {
    added: Object.keys(after).filter((k) => !Object.hasOwn(before, k)),
    removed: Object.keys(before).filter((k) => !Object.hasOwn(after, k)),
    changed: Object.keys(after).filter((k) => Object.hasOwn(before, k) && before[k] !== after[k]),
  };
}

/** "1 added, 2 changed" for the save button's status line; "" when nothing changed. */
export function describeChanges(c: LabelChanges): string {
  return [
    c.added.length ? `${c.added.length} added` : "",
    c.changed.length ? `${c.changed.length} changed` : "",
    c.removed.length ? `${c.removed.length} removed` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1) + (s.endsWith(".") ? "" : ".");
}
