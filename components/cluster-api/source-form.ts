import type { CapiSourceView, CreateCapiSource, UpdateCapiSource } from "@/lib/contracts/cluster-api";
import { DEFAULT_OPT_IN_LABEL, type LabelMapping } from "@/lib/domain/cluster-api";
import { labelKeyProblem, labelValueProblem, type Labels } from "@/lib/domain/labels";
import { ApiRequestError } from "@/lib/client/fetch-json";

// The Cluster API source dialog's text fields and what they send: namespaces as a comma list,
// fixed labels as key=value lines, mappings as rows. Pure, so the parsing is unit-tested; the
// server checks everything again and its field errors are placed back at these fields.

/** The dialog's fields, as typed. */
export type SourceDraft = {
  name: string;
  kubeconfig: string;
  namespaces: string;
  optInLabel: string;
  mappings: LabelMapping[];
  fixedLabels: string;
  requireApproval: boolean;
  allowPrivateTargets: boolean;
  agentImage: string;
  httpsProxy: string;
  noProxy: string;
};

/** The fields an error can be shown under. */
export const SOURCE_FIELDS = [
  "name",
  "kubeconfig",
  "namespaces",
  "optInLabel",
  "labelMappings",
  "fixedLabels",
  "agentImage",
  "httpsProxy",
  "noProxy",
] as const;
export type SourceField = (typeof SOURCE_FIELDS)[number];
export type SourceErrors = Partial<Record<SourceField, string>>;

export function emptyDraft(): SourceDraft {
  return {
    name: "",
    kubeconfig: "",
    namespaces: "",
    optInLabel: DEFAULT_OPT_IN_LABEL,
    mappings: [],
    fixedLabels: "",
    requireApproval: false,
    allowPrivateTargets: false,
    agentImage: "",
    httpsProxy: "",
    noProxy: "",
  };
}

/** A stored source as the dialog shows it for an edit (its kubeconfig is never sent back: empty). */
export function draftOf(source: CapiSourceView): SourceDraft {
  return {
    name: source.name,
    kubeconfig: "",
    namespaces: source.namespaces.join(", "),
    optInLabel: source.optInLabel,
    mappings: source.labelMappings.map((m) => ({ ...m })),
    fixedLabels: formatLabelLines(source.fixedLabels),
    requireApproval: source.requireApproval,
    allowPrivateTargets: source.allowPrivateTargets,
    agentImage: source.agentOptions.agentImage ?? "",
    httpsProxy: source.agentOptions.httpsProxy ?? "",
    noProxy: source.agentOptions.noProxy ?? "",
  };
}

/** "capi-system, team-a" (commas or spaces) as a list, blanks and repeats dropped. */
export function parseNamespaces(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

export function formatLabelLines(labels: Labels): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n");
}

/** key=value lines (blank lines ignored) as labels, or the first line that is not one and why. */
export function parseLabelLines(text: string): { labels: Labels; problem: string | null } {
  const labels: Labels = {};
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf("=");
    if (at < 1) return { labels, problem: `Line ${i + 1}: "${line}" is not key=value.` };
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    const problem = labelKeyProblem(key) ?? labelValueProblem(value);
    if (problem) return { labels, problem: `Line ${i + 1}: ${problem}` };
    if (key in labels) return { labels, problem: `Line ${i + 1}: ${key} is given twice.` };
    labels[key] = value;
  }
  return { labels, problem: null };
}

/** The filled mapping rows (both sides blank: ignored), or the first half-filled or malformed one and why. */
export function parseMappings(rows: readonly LabelMapping[]): { mappings: LabelMapping[]; problem: string | null } {
  const mappings: LabelMapping[] = [];
  for (const [i, row] of rows.entries()) {
    const from = row.from.trim();
    const to = row.to.trim();
    if (!from && !to) continue;
    if (!from || !to) return { mappings, problem: `Mapping ${i + 1}: name both the CAPI label and the fleet label.` };
    const problem = labelKeyProblem(from) ?? labelKeyProblem(to);
    if (problem) return { mappings, problem: `Mapping ${i + 1}: ${problem}` };
    mappings.push({ from, to });
  }
  return { mappings, problem: null };
}

type Settings = Omit<CreateCapiSource, "name" | "kubeconfig" | "enabled">;

/** Everything but the name and the kubeconfig, parsed; or the field errors found before sending. */
function settingsOf(draft: SourceDraft): { settings: Settings; errors: SourceErrors } {
  const errors: SourceErrors = {};
  const fixed = parseLabelLines(draft.fixedLabels);
  if (fixed.problem) errors.fixedLabels = fixed.problem;
  const mappings = parseMappings(draft.mappings);
  if (mappings.problem) errors.labelMappings = mappings.problem;
  const optInLabel = draft.optInLabel.trim();
  const optInProblem = optInLabel ? labelKeyProblem(optInLabel) : "Name the label that opts a cluster in.";
  if (optInProblem) errors.optInLabel = optInProblem;
  const agentOptions = {
    ...(draft.agentImage.trim() ? { agentImage: draft.agentImage.trim() } : {}),
    ...(draft.httpsProxy.trim() ? { httpsProxy: draft.httpsProxy.trim() } : {}),
    ...(draft.noProxy.trim() ? { noProxy: draft.noProxy.trim() } : {}),
  };
  return {
    settings: {
      namespaces: parseNamespaces(draft.namespaces),
      optInLabel,
      labelMappings: mappings.mappings,
      fixedLabels: fixed.labels,
      requireApproval: draft.requireApproval,
      allowPrivateTargets: draft.allowPrivateTargets,
      agentOptions,
    },
    errors,
  };
}

/** The create request, or the field errors found before sending it. */
export function createBody(draft: SourceDraft): { body: CreateCapiSource | null; errors: SourceErrors } {
  const { settings, errors } = settingsOf(draft);
  if (!draft.name.trim()) errors.name = "Name the source: it prefixes its clusters' fleet names.";
  if (!draft.kubeconfig.trim()) errors.kubeconfig = "Paste the management cluster's kubeconfig.";
  if (Object.keys(errors).length) return { body: null, errors };
  return { body: { name: draft.name.trim(), kubeconfig: draft.kubeconfig, enabled: true, ...settings }, errors };
}

/**
 * The edit as a patch of what changed only (the audit log then shows exactly the edit made); an
 * empty kubeconfig keeps the stored one. `{}` when nothing changed.
 */
export function updatePatch(
  source: CapiSourceView,
  draft: SourceDraft,
): { patch: UpdateCapiSource | null; errors: SourceErrors } {
  const { settings, errors } = settingsOf(draft);
  if (Object.keys(errors).length) return { patch: null, errors };
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const patch: Record<string, unknown> = {};
  if (draft.kubeconfig.trim()) patch.kubeconfig = draft.kubeconfig;
  if (!same(settings.namespaces, source.namespaces)) patch.namespaces = settings.namespaces;
  if (settings.optInLabel !== source.optInLabel) patch.optInLabel = settings.optInLabel;
  if (!same(settings.labelMappings, source.labelMappings)) patch.labelMappings = settings.labelMappings;
  if (!same(sorted(settings.fixedLabels), sorted(source.fixedLabels))) patch.fixedLabels = settings.fixedLabels;
  if (settings.requireApproval !== source.requireApproval) patch.requireApproval = settings.requireApproval;
  if (settings.allowPrivateTargets !== source.allowPrivateTargets) patch.allowPrivateTargets = settings.allowPrivateTargets;
  if (!same(sorted(settings.agentOptions), sorted(source.agentOptions))) patch.agentOptions = settings.agentOptions;
  return { patch: patch as UpdateCapiSource, errors };
}

const sorted = (o: Record<string, string | undefined>) =>
  Object.fromEntries(
    Object.entries(o)
      .filter((e) => e[1] !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  );

/** The server's field errors (a 400's `details`) placed at the dialog's fields; the rest stays in the general error. */
export function serverFieldErrors(err: unknown): SourceErrors {
  if (!(err instanceof ApiRequestError) || !Array.isArray(err.details)) return {};
  const out: SourceErrors = {};
  for (const d of err.details as { field?: unknown; message?: unknown }[]) {
    if (typeof d.field !== "string" || typeof d.message !== "string") continue;
    const [head, sub] = d.field.split(".");
    const field = head === "agentOptions" ? sub : head;
    if ((SOURCE_FIELDS as readonly string[]).includes(field ?? "")) out[field as SourceField] ??= d.message;
  }
  return out;
}
