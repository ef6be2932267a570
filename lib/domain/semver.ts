// Semantic versions and the small range language the compatibility matrix uses:
// comparators joined by spaces (AND) and "||" (OR): ">=1.2.0 <2.0.0", "1.4.x", "=1.30.2".

/**
 * A semantic version as the agent protocol writes it (1.4.0, 1.30.2-rc.1): no leading zeros, no
 * leading "v". Kubernetes writes its own with a "v" (v1.30.2): isSemver(text, true) allows it.
 */
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export function isSemver(text: string, allowLeadingV = false): boolean {
  return SEMVER.test(allowLeadingV ? text.replace(/^v/, "") : text);
}

/**
 * The Kubernetes version a simulated cluster runs when nothing names one. The agent's own
 * version is package.json's "agentVersion" (lib/agent/version.ts), never a constant.
 */
export const DEFAULT_KUBERNETES_VERSION = "1.30.2";

export type Version = { major: number; minor: number; patch: number; pre: string | null };

export function parseVersion(text: string): Version | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] ?? null } : null;
}

/** <0, 0, >0 like a sort comparator; a pre-release sorts before its release. */
export function compareVersions(a: Version, b: Version): number {
  return (
    a.major - b.major ||
    a.minor - b.minor ||
    a.patch - b.patch ||
    (a.pre === b.pre ? 0 : a.pre === null ? 1 : b.pre === null ? -1 : a.pre < b.pre ? -1 : 1)
  );
}

export function compare(a: string, b: string): number {
  const va = parseVersion(a);
  const vb = parseVersion(b);
  if (!va || !vb) throw new Error(`not a semantic version: ${va ? b : a}`);
  return compareVersions(va, vb);
}

function satisfiesComparator(v: Version, comparator: string): boolean {
  const wild = /^(\d+)\.(x|\*|\d+)(?:\.(x|\*))?$/.exec(comparator);
  if (wild) {
    if (v.major !== Number(wild[1])) return false;
    return wild[2] === "x" || wild[2] === "*" || v.minor === Number(wild[2]);
  }
  const m = /^(>=|<=|>|<|=)?(.+)$/.exec(comparator);
  const target = m ? parseVersion(m[2]!) : null;
  if (!m || !target) throw new Error(`not a version comparator: "${comparator}"`);
  const c = compareVersions(v, target);
  switch (m[1] ?? "=") {
    case ">=":
      return c >= 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    case "<":
      return c < 0;
    default:
      return c === 0;
  }
}

export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  if (!v) return false;
  return range.split("||").some((alt) =>
    alt
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .every((c) => satisfiesComparator(v, c)),
  );
}

/** Throws on a range this module cannot read (for validating admin edits). */
export function assertRange(range: string): void {
  satisfies("0.0.0", range);
}
