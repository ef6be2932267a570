// The fleet's label keys and values with their cluster counts (GET /api/v1/labels), and what the
// console derives from them: suggestions for a selector, the clusters a new required label blocks.

/** The most values listed per key (the most common first); `otherValues` counts the rest. */
export const MAX_VALUES_PER_KEY = 50;

export type LabelValueCount = { value: string; count: number };
export type LabelKeyCount = { key: string; clusters: number; values: LabelValueCount[]; otherValues: number };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Rows of (key, value, count) as keys in name order, each with its most common values first. */
export function labelKeyCounts(rows: readonly { key: string; value: string; count: number }[]): LabelKeyCount[] {
  const byKey = new Map<string, LabelValueCount[]>();
  for (const { key, value, count } of rows) {
    const values = byKey.get(key) ?? [];
    values.push({ value, count });
    byKey.set(key, values);
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => byText(a, b))
    .map(([key, values]) => {
      values.sort((a, b) => b.count - a.count || byText(a.value, b.value));
      return {
        key,
        clusters: values.reduce((n, v) => n + v.count, 0),
        values: values.slice(0, MAX_VALUES_PER_KEY),
        otherValues: Math.max(0, values.length - MAX_VALUES_PER_KEY),
      };
    });
}

/**
 * For each key that would become required (in `next`, not in `current`): how many of the fleet's
 * clusters lack it and would be blocked. A key no cluster carries blocks them all.
 */
export function blockedByNewRequiredLabels(
  current: readonly string[],
  next: readonly string[],
  summary: { clusters: number; keys: readonly Pick<LabelKeyCount, "key" | "clusters">[] },
): { key: string; blocked: number }[] {
  const carrying = new Map(summary.keys.map((k) => [k.key, k.clusters]));
  return [...new Set(next)]
    .filter((key) => !current.includes(key))
    .map((key) => ({ key, blocked: Math.max(0, summary.clusters - (carrying.get(key) ?? 0)) }));
}

/** What the selector input can suggest at the caret: the text to replace and the candidates. */
export type SelectorSuggestions = {
  kind: "key" | "value";
  /** the label key whose values are offered (kind "value") */
  key?: string;
  /** [from, to) is replaced by the chosen candidate's text */
  from: number;
  to: number;
  items: { text: string; count: number }[];
};

export const MAX_SUGGESTIONS = 8;

// A key or value being typed: everything up to the next separator of the selector syntax.
const WORD_AFTER = /^[^\s,!=()]*/;

/**
 * Candidates for the selector term at `caret` (kubectl syntax: `env=prod,region in (eu,us),!legacy`):
 * label keys while a key is typed, the key's values after `=`, `==`, `!=` or inside `in (…)` /
 * `notin (…)`. Prefix matches, the most common first (as the summary lists them); nothing when
 * the word typed is already the only candidate.
 */
export function selectorSuggestions(text: string, caret: number, keys: readonly LabelKeyCount[]): SelectorSuggestions | null {
  const before = text.slice(0, caret);
  const to = caret + (WORD_AFTER.exec(text.slice(caret))?.[0].length ?? 0);
  const depth = [...before].reduce((d, ch) => d + (ch === "(" ? 1 : ch === ")" ? -1 : 0), 0);
  const valueOf = (key: string, partial: string): SelectorSuggestions | null => {
    const entry = keys.find((k) => k.key === key);
    if (!entry) return null;
    const items = entry.values
      .filter((v) => v.value !== "" && v.value.toLowerCase().startsWith(partial.toLowerCase()))
      .slice(0, MAX_SUGGESTIONS)
      .map((v) => ({ text: v.value, count: v.count }));
    return settle({ kind: "value", key, from: caret - partial.length, to, items }, text.slice(caret - partial.length, to));
  };
  if (depth > 0) {
    const inSet = /(?:^|,)\s*([^\s,!=()]+)\s+(?:in|notin)\s*\((?:[^()]*,)?\s*([^\s,()]*)$/.exec(before);
    return inSet ? valueOf(inSet[1]!, inSet[2]!) : null;
  }
  const afterOp = /(?:^|,)\s*([^\s,!=()]+)\s*(?:==|!=|=)\s*([^\s,()]*)$/.exec(before);
  if (afterOp) return valueOf(afterOp[1]!, afterOp[2]!);
  const typingKey = /(?:^|,)\s*!?\s*([^\s,!=()]*)$/.exec(before);
  if (!typingKey) return null;
  const partial = typingKey[1]!;
  const items = keys
    .filter((k) => k.key.toLowerCase().startsWith(partial.toLowerCase()))
    .sort((a, b) => b.clusters - a.clusters || byText(a.key, b.key))
    .slice(0, MAX_SUGGESTIONS)
    .map((k) => ({ text: k.key, count: k.clusters }));
  return settle({ kind: "key", from: caret - partial.length, to, items }, text.slice(caret - partial.length, to));
}

/** No list when there is nothing to offer, or the one candidate is already what is typed. */
function settle(s: SelectorSuggestions, typed: string): SelectorSuggestions | null {
  if (s.items.length === 0) return null;
  if (s.items.length === 1 && s.items[0]!.text === typed) return null;
  return s;
}

/** The text and caret after choosing `item` from `s`. */
export function applySuggestion(text: string, s: SelectorSuggestions, item: string): { text: string; caret: number } {
  return { text: text.slice(0, s.from) + item + text.slice(s.to), caret: s.from + item.length };
}
