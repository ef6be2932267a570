// Kubernetes label selectors in kubectl syntax: `env=prod,region in (eu,us),!legacy`.
// Pure: parsed here, matched here, and translated to a database filter by the server.

export type Requirement =
  | { key: string; op: "in"; values: string[] }
  | { key: string; op: "notin"; values: string[] }
  | { key: string; op: "exists" }
  | { key: string; op: "!exists" };
export type Selector = Requirement[];

export class SelectorError extends Error {}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function checkKey(key: string) {
  if (!KEY.test(key)) throw new SelectorError(`"${key}" is not a valid label key`);
  return key;
}
function checkValue(value: string) {
  if (!VALUE.test(value)) throw new SelectorError(`"${value}" is not a valid label value`);
  return value;
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(input: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of input) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (depth < 0) throw new SelectorError("unbalanced ')'");
    if (ch === "," && depth === 0) {
      terms.push(current);
      current = "";
    } else current += ch;
  }
  if (depth !== 0) throw new SelectorError("unbalanced '('");
  terms.push(current);
  return terms.map((t) => t.trim());
}

export function parseSelector(input: string): Selector {
  const text = input.trim();
  if (text === "") return [];
  return splitTerms(text).map((term): Requirement => {
    if (term === "") throw new SelectorError("empty requirement (two commas in a row?)");
    let m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
    if (m) {
      const values = m[3]!.split(",").map((v) => checkValue(v.trim()));
      if (values.length === 0 || (values.length === 1 && values[0] === ""))
        throw new SelectorError(`"${term}" needs at least one value`);
      return { key: checkKey(m[1]!), op: m[2] as "in" | "notin", values };
    }
    m = /^(.+?)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (m) {
      const key = checkKey(m[1]!.trim());
      const value = checkValue(m[3]!.trim());
      return m[2] === "!=" ? { key, op: "notin", values: [value] } : { key, op: "in", values: [value] };
    }
    m = /^!\s*(\S+)$/.exec(term);
    if (m) return { key: checkKey(m[1]!), op: "!exists" };
    if (/\s/.test(term)) throw new SelectorError(`cannot parse "${term}"`);
    return { key: checkKey(term), op: "exists" };
  });
}

export function matchesSelector(labels: Record<string, string>, selector: Selector): boolean {
  return selector.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.op) {
      case "exists":
        return has;
      case "!exists":
        return !has;
      case "in":
        return has && r.values.includes(labels[r.key]!);
      case "notin":
        return !has || !r.values.includes(labels[r.key]!);
    }
  });
}

export function formatSelector(selector: Selector): string {
  return selector
    .map((r) => {
      if (r.op === "exists") return r.key;
      if (r.op === "!exists") return `!${r.key}`;
      if (r.values.length === 1) return `${r.key}${r.op === "in" ? "=" : "!="}${r.values[0]}`;
      return `${r.key} ${r.op} (${r.values.join(",")})`;
    })
    .join(",");
}
