import type { CompatibilityMatrix, VersionFlag } from "@/lib/domain/compatibility";
import { compare, parseVersion, satisfies } from "@/lib/domain/semver";

// Shaping the Versions page's numbers: Kubernetes minors as matrix columns, versions sorted as
// versions (1.10 after 1.9), and what colour a version's bar gets. Pure, no React.

export type Minor = { major: number; minor: number; label: string };
export type Support = "full" | "partial" | "none";

/** Sorts version strings as semantic versions; unparsable ones go last, alphabetically. */
export function byVersion(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (pa && pb) return compare(a, b);
  if (pa) return -1;
  if (pb) return 1;
  return a.localeCompare(b);
}

/** "1.30" of "1.30.2" (null when it is not a version). */
export function minorOf(version: string): string | null {
  const v = parseVersion(version);
  return v ? `${v.major}.${v.minor}` : null;
}

/**
 * The Kubernetes minors to show as columns: every minor a range names or a cluster runs, with
 * the gaps between them filled so the grid reads as a continuous timeline.
 */
export function kubernetesColumns(matrix: CompatibilityMatrix, running: readonly string[]): Minor[] {
  const seen = new Map<number, Set<number>>();
  const add = (major: number, minor: number) => seen.set(major, (seen.get(major) ?? new Set()).add(minor));
  for (const row of matrix.agents) for (const m of row.kubernetes.matchAll(/(\d+)\.(\d+)/g)) add(Number(m[1]), Number(m[2]));
  for (const v of running) {
    const p = parseVersion(v);
    if (p) add(p.major, p.minor);
  }
  const columns: Minor[] = [];
  for (const major of [...seen.keys()].sort((a, b) => a - b)) {
    const minors = [...seen.get(major)!];
    for (let m = Math.min(...minors); m <= Math.max(...minors); m++) columns.push({ major, minor: m, label: `${major}.${m}` });
  }
  // An exclusive upper bound ("<1.33.0") names a minor no row supports: drop it unless a cluster runs it.
  return columns.filter(
    (c) =>
      running.some((v) => minorOf(v) === c.label) || matrix.agents.some((r) => kubernetesSupport(r.kubernetes, c) !== "none"),
  );
}

/** Whether a range covers a whole minor, part of its patches, or none (probed at .0 and a high patch). */
export function kubernetesSupport(range: string, column: Minor): Support {
  const low = satisfies(`${column.major}.${column.minor}.0`, range);
  const high = satisfies(`${column.major}.${column.minor}.999`, range);
  return low && high ? "full" : low || high ? "partial" : "none";
}

export type AgentStanding = "current" | "outdated" | "incompatible";

/** How an agent version stands against the matrix (the same rule as the server's flags). */
export function agentStanding(matrix: CompatibilityMatrix, version: string): AgentStanding {
  if (!satisfies(version, matrix.acceptedAgentVersions)) return "incompatible";
  return parseVersion(version) && compare(version, matrix.recommendedAgentVersion) < 0 ? "outdated" : "current";
}

/** Clusters whose agent version falls in a matrix row's range. */
export function clustersInRange(range: string, agentVersions: readonly { version: string; count: number }[]): number {
  return agentVersions.filter((a) => satisfies(a.version, range)).reduce((s, a) => s + a.count, 0);
}

/** Kubernetes versions summed per minor, oldest first. */
export function kubernetesByMinor(
  versions: readonly { version: string; count: number }[],
): { minor: string; count: number; patches: string[] }[] {
  const rows = new Map<string, { minor: string; count: number; patches: string[] }>();
  for (const v of [...versions].sort((a, b) => byVersion(a.version, b.version))) {
    const minor = minorOf(v.version) ?? v.version;
    const row = rows.get(minor) ?? { minor, count: 0, patches: [] };
    row.count += v.count;
    row.patches.push(`${v.version} (${v.count})`);
    rows.set(minor, row);
  }
  return [...rows.values()];
}

export const FLAG_INFO: Record<VersionFlag, { label: string; hint: string }> = {
  incompatible: { label: "Incompatible", hint: "Agent version outside the accepted range: it cannot register again" },
  outdated: { label: "Outdated", hint: "Accepted, but older than the recommended agent version" },
  "unsupported-kubernetes": {
    label: "Unsupported Kubernetes",
    hint: "The agent version does not support the cluster's Kubernetes version",
  },
};

/**
 * Whether any version of a matrix row's agent range is accepted by the control plane, probed at
 * the versions the range names (and the first and a high patch of each minor it names).
 */
export function rangeAccepted(rowRange: string, acceptedRange: string): boolean {
  const probes = [...rowRange.matchAll(/(\d+)\.(\d+)(?:\.(\d+))?/g)].flatMap((m) =>
    m[3] !== undefined ? [`${m[1]}.${m[2]}.${m[3]}`] : [`${m[1]}.${m[2]}.0`, `${m[1]}.${m[2]}.999`],
  );
  return probes.some((v) => satisfies(v, rowRange) && satisfies(v, acceptedRange));
}
