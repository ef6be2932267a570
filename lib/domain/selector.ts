// Kubernetes label selectors in kubectl syntax: `env=prod,region in (eu,us),!legacy`.
// Pure: parsed here, matched here, and translated to a database filter by the server.
import type { z } from "zod";

export type Requirement =
  | { key: string; op: "in"; values: string[] }
  | { key: string; op: "notin"; values: string[] }
  | { key: string; op: "exists" }
  | { key: string; op: "!exists" };
export type Selector = Requirement[];

/**
 * Bounds on every selector, checked here so every caller (list, gate, groups, rollouts, fleetctl,
 * the console) enforces the same ones. They keep one request from freezing the server: the SQL a
 * selector becomes (lib/server/clusters/cluster-list-sql.ts) has at most 2 x 20 compound-SELECT terms
 * (a selector and a group) and 20 x 50 bound values, far below SQLite's 500 terms and 32,766
 * variables and PostgreSQL's 65,535 parameters.
 */
export const SELECTOR_LIMITS = { length: 1024, terms: 20, values: 50 } as const;
export type SelectorLimit = { limit: keyof typeof SELECTOR_LIMITS; max: number; actual: number };

export class SelectorError extends Error {
  constructor(
    message: string,
    /** set when the selector is well-formed but over one of SELECTOR_LIMITS */
    readonly limit?: SelectorLimit,
  ) {
    super(message);
  }
}

function overLimit(limit: keyof typeof SELECTOR_LIMITS, actual: number, message: string): SelectorError {
  return new SelectorError(message, { limit, max: SELECTOR_LIMITS[limit], actual });
}

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

const count = (n: number) => n.toLocaleString("en-US");

export function parseSelector(input: string): Selector {
  const text = input.trim();
  if (text === "") return [];
  // Bounds first, before any work proportional to the input.
  if (text.length > SELECTOR_LIMITS.length)
    throw overLimit(
      "length",
      text.length,
      `a selector may be at most ${count(SELECTOR_LIMITS.length)} characters long; this one has ${count(text.length)}`,
    );
  const terms = splitTerms(text);
  if (terms.length > SELECTOR_LIMITS.terms)
    throw overLimit(
      "terms",
      terms.length,
      `a selector may have at most ${SELECTOR_LIMITS.terms} terms; this one has ${count(terms.length)}`,
    );
  return terms.map((term): Requirement => {
    if (term === "") throw new SelectorError("empty requirement (two commas in a row?)");
    let m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
    if (m) {
      const key = checkKey(m[1]!);
      const raw = m[3]!.split(",");
      if (raw.length > SELECTOR_LIMITS.values)
        throw overLimit(
          "values",
          raw.length,
          `"${key} ${m[2]} (...)" may list at most ${SELECTOR_LIMITS.values} values; this one lists ${count(raw.length)}`,
        );
      const values = raw.map((v) => checkValue(v.trim()));
      if (values.length === 0 || (values.length === 1 && values[0] === ""))
        throw new SelectorError(`"${term}" needs at least one value`);
      return { key, op: m[2] as "in" | "notin", values };
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

/** What is wrong with a selector (syntax or a limit), or null when it parses; "" parses (matches all). */
export function selectorProblem(text: string): string | null {
  try {
    parseSelector(text);
    return null;
  } catch (err) {
    if (err instanceof SelectorError) return err.message;
    throw err;
  }
}

/**
 * For zod schemas of requests that carry a selector (`.superRefine(checkSelectorText)`): a bad or
 * over-limit selector becomes an issue with the parser's message, and the limit as `params`.
 */
export function checkSelectorText(text: string, ctx: z.RefinementCtx): void {
  try {
    parseSelector(text);
  } catch (err) {
    if (!(err instanceof SelectorError)) throw err;
    ctx.addIssue({ code: "custom", message: err.message, ...(err.limit ? { params: err.limit } : {}) });
  }
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
