// The mint form's state and its conversion to the API's body, kept apart from the JSX so the
// rules (TTL units, label rows, duplicate keys) read in one place. Validation ends with the
// shared mintTokenSchema, so the form can never accept what the server would refuse.
import { labelKeyProblem, labelValueProblem } from "@/lib/domain/labels";
import { mintTokenSchema, TOKEN_TTL_DEFAULT_SECONDS, TOKEN_TTL_MAX_SECONDS, type MintTokenInput } from "@/lib/domain/tokens";

export const TTL_PRESETS = [
  { id: "1h", label: "1 h", seconds: 3_600 },
  { id: "2h", label: "2 h", seconds: 7_200 },
  { id: "24h", label: "24 h", seconds: 86_400 },
  { id: "7d", label: "7 d", seconds: 7 * 86_400 },
  { id: "30d", label: "30 d", seconds: TOKEN_TTL_MAX_SECONDS },
] as const;
export type TtlPresetId = (typeof TTL_PRESETS)[number]["id"] | "custom";

export const TTL_UNITS = { minutes: 60, hours: 3_600, days: 86_400 } as const;
export type TtlUnit = keyof typeof TTL_UNITS;

export type ScopeRow = { id: string; key: string; anyValue: boolean; values: string[]; pending: string };
export type FixedRow = { id: string; key: string; value: string };

export type MintDraft = {
  name: string;
  description: string;
  ttlPreset: TtlPresetId;
  customTtl: string;
  customUnit: TtlUnit;
  maxClusters: string;
  /** "any": no allowedLabels (any label may be asked for); "scoped": only the rows below. */
  scopeMode: "any" | "scoped";
  scopeRows: ScopeRow[];
  fixedRows: FixedRow[];
  /** null: the fleet's default (Settings) decides. */
  requireApproval: boolean | null;
  /** The team it is minted for (its name); "": the fleet. */
  team: string;
};

let rowSeq = 0;
export function rowId(): string {
  rowSeq += 1;
  return `row-${rowSeq}`;
}

export function emptyScopeRow(): ScopeRow {
  return { id: rowId(), key: "", anyValue: false, values: [], pending: "" };
}
export function emptyFixedRow(): FixedRow {
  return { id: rowId(), key: "", value: "" };
}

export function initialDraft(): MintDraft {
  return {
    name: "",
    description: "",
    ttlPreset: TTL_PRESETS.find((p) => p.seconds === TOKEN_TTL_DEFAULT_SECONDS)?.id ?? "2h",
    customTtl: "12",
    customUnit: "hours",
    maxClusters: "1",
    scopeMode: "any",
    scopeRows: [],
    fixedRows: [],
    requireApproval: null,
    team: "",
  };
}

export function ttlSeconds(draft: Pick<MintDraft, "ttlPreset" | "customTtl" | "customUnit">): number {
  if (draft.ttlPreset !== "custom") return TTL_PRESETS.find((p) => p.id === draft.ttlPreset)!.seconds;
  const n = Number(draft.customTtl);
  return draft.customTtl.trim() === "" || !Number.isFinite(n) ? NaN : Math.round(n * TTL_UNITS[draft.customUnit]);
}

/** A row's values including what is still typed in its chip input (so Mint does not drop it). */
export function rowValues(row: ScopeRow): string[] {
  const pending = row.pending.trim();
  return pending && !row.values.includes(pending) ? [...row.values, pending] : row.values;
}

/** labelKeyProblem speaks of the key's "name" and "prefix"; say whose. */
function keyProblem(key: string): string | null {
  if (!key) return "Enter a label key.";
  const problem = labelKeyProblem(key);
  return problem ? `Key ${problem}.` : null;
}

function valueProblem(value: string): string | null {
  const problem = labelValueProblem(value);
  return problem ? `Value ${problem.replace(/^value /, "")}.` : null;
}

/** Field id -> message. Ids: name, description, ttl, maxClusters, scope, `${rowId}-key`, `${rowId}-values`, `${rowId}-value`. */
export type DraftErrors = Record<string, string>;

function duplicateKeys(keys: { id: string; key: string }[]): Set<string> {
  const seen = new Map<string, string>();
  const dupes = new Set<string>();
  for (const { id, key } of keys) {
    const k = key.trim();
    if (!k) continue;
    if (seen.has(k)) dupes.add(id);
    else seen.set(k, id);
  }
  return dupes;
}

/** The API body, or the problems to show next to each control. */
export function draftToInput(draft: MintDraft): { input: MintTokenInput | null; errors: DraftErrors } {
  const errors: DraftErrors = {};

  if (!draft.name.trim()) errors.name = "Give the token a name, e.g. the cluster or pipeline it is for.";
  else if (draft.name.trim().length > 100) errors.name = "At most 100 characters.";
  if (draft.description.trim().length > 500) errors.description = "At most 500 characters.";

  const ttl = ttlSeconds(draft);
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > TOKEN_TTL_MAX_SECONDS) errors.ttl = "Between 1 minute and 30 days.";

  const max = Number(draft.maxClusters);
  if (draft.maxClusters.trim() === "" || !Number.isInteger(max) || max < 1 || max > 100_000)
    errors.maxClusters = "A whole number from 1 to 100,000.";

  let allowedLabels: MintTokenInput["allowedLabels"];
  if (draft.scopeMode === "scoped") {
    allowedLabels = {};
    const dupes = duplicateKeys(draft.scopeRows);
    for (const row of draft.scopeRows) {
      const key = row.key.trim();
      const keyError = keyProblem(key);
      if (keyError) errors[`${row.id}-key`] = keyError;
      else if (dupes.has(row.id)) errors[`${row.id}-key`] = `"${key}" is listed twice.`;
      const values = rowValues(row);
      if (!row.anyValue) {
        const bad = values.map((v) => [v, valueProblem(v)] as const).find(([, p]) => p);
        if (bad) errors[`${row.id}-values`] = `"${bad[0]}": ${bad[1]}`;
        else if (values.length === 0) errors[`${row.id}-values`] = "Add at least one value, or allow any value.";
        else if (values.length > 100) errors[`${row.id}-values`] = "At most 100 values.";
      }
      if (key) allowedLabels[key] = row.anyValue ? "*" : values;
    }
    if (draft.scopeRows.length > 64) errors.scope = "At most 64 label keys.";
  }

  const fixedLabels: Record<string, string> = {};
  const fixedDupes = duplicateKeys(draft.fixedRows);
  for (const row of draft.fixedRows) {
    const key = row.key.trim();
    const value = row.value.trim();
    const keyError = keyProblem(key);
    if (keyError) errors[`${row.id}-key`] = keyError;
    else if (fixedDupes.has(row.id)) errors[`${row.id}-key`] = `"${key}" is listed twice.`;
    const valueError = value ? valueProblem(value) : "Enter the value every cluster gets.";
    if (valueError) errors[`${row.id}-value`] = valueError;
    if (key) fixedLabels[key] = value;
  }

  if (Object.keys(errors).length) return { input: null, errors };

  const parsed = mintTokenSchema.safeParse({
    name: draft.name.trim(),
    description: draft.description.trim() || undefined,
    ttlSeconds: ttl,
    maxClusters: max,
    allowedLabels,
    fixedLabels: Object.keys(fixedLabels).length ? fixedLabels : undefined,
    requireApproval: draft.requireApproval ?? undefined,
    team: draft.team || undefined,
  });
  if (parsed.success) return { input: parsed.data, errors };
  // Anything the row checks above did not catch, shown at the field it belongs to.
  for (const issue of parsed.error.issues) {
    const top = String(issue.path[0] ?? "form");
    const field = top === "ttlSeconds" ? "ttl" : top === "allowedLabels" ? "scope" : top === "fixedLabels" ? "fixed" : top;
    errors[field] ??= issue.message;
  }
  return { input: null, errors };
}
