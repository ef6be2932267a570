// The compatibility matrix as the Versions page edits it: a table of rows (an agent range and the
// Kubernetes range it supports) with the accepted and recommended versions above it. Each cell is
// checked on its own, with a message beside it, before the whole is checked against the schema
// the server uses (lib/domain/compatibility.ts). Pure.

import type { CompatibilityMatrix } from "./compatibility";
import { assertRange, parseVersion, satisfies } from "./semver";

export type MatrixRow = { agentVersions: string; kubernetes: string };
export type MatrixDraft = { acceptedAgentVersions: string; recommendedAgentVersion: string; rows: MatrixRow[] };
export type MatrixDraftProblems = {
  acceptedAgentVersions: string | null;
  recommendedAgentVersion: string | null;
  rows: { agentVersions: string | null; kubernetes: string | null }[];
  /** about the table as a whole (no rows, too many) */
  table: string | null;
};

export const MAX_MATRIX_ROWS = 100;

function rangeProblem(range: string, what: string): string | null {
  if (!range.trim()) return `Give ${what}, e.g. 1.4.x or >=1.28.0 <1.32.0.`;
  try {
    assertRange(range.trim());
    return null;
  } catch (err) {
    return `${(err as Error).message}. Use comparators joined by spaces (and) or || (or), e.g. >=1.28.0 <1.32.0.`;
  }
}

export function draftOf(m: CompatibilityMatrix): MatrixDraft {
  return {
    acceptedAgentVersions: m.acceptedAgentVersions,
    recommendedAgentVersion: m.recommendedAgentVersion,
    rows: m.agents.map((a) => ({ ...a })),
  };
}

/** Each cell's problem (null when fine); `ok` when none has one. */
export function draftProblems(d: MatrixDraft): MatrixDraftProblems & { ok: boolean } {
  const accepted = rangeProblem(d.acceptedAgentVersions, "the accepted agent versions");
  const rec = d.recommendedAgentVersion.trim();
  const recommended = !parseVersion(rec)
    ? "Give a version such as 1.4.0."
    : !accepted && !satisfies(rec, d.acceptedAgentVersions.trim())
      ? `${rec} is not within the accepted versions: no agent could run it.`
      : !d.rows.some((r) => !rangeProblem(r.agentVersions, "") && satisfies(rec, r.agentVersions.trim()))
        ? `No row covers ${rec}: add one saying which Kubernetes versions it supports.`
        : null;
  const rows = d.rows.map((r) => ({
    agentVersions: rangeProblem(r.agentVersions, "the agent versions of this row"),
    kubernetes: rangeProblem(r.kubernetes, "the Kubernetes versions this row supports"),
  }));
  const table = !d.rows.length
    ? "Add at least one row."
    : d.rows.length > MAX_MATRIX_ROWS
      ? `At most ${MAX_MATRIX_ROWS} rows.`
      : null;
  const ok = !accepted && !recommended && !table && rows.every((r) => !r.agentVersions && !r.kubernetes);
  return { acceptedAgentVersions: accepted, recommendedAgentVersion: recommended, rows, table, ok };
}

/** The matrix a valid draft stands for (the control plane's version is the one in force). */
export function matrixOf(d: MatrixDraft, base: CompatibilityMatrix): CompatibilityMatrix {
  return {
    schemaVersion: 1,
    controlPlaneVersion: base.controlPlaneVersion,
    acceptedAgentVersions: d.acceptedAgentVersions.trim(),
    recommendedAgentVersion: d.recommendedAgentVersion.trim(),
    agents: d.rows.map((r) => ({ agentVersions: r.agentVersions.trim(), kubernetes: r.kubernetes.trim() })),
  };
}
