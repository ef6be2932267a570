import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  applySuggestion,
  blockedByNewRequiredLabels,
  labelKeyCounts,
  MAX_VALUES_PER_KEY,
  selectorSuggestions,
} from "@/lib/domain/label-summary";

const keys = labelKeyCounts([
  { key: "region", value: "eu-west-1", count: 5 },
  { key: "env", value: "prod", count: 7 },
  { key: "env", value: "dev", count: 2 },
  { key: "env", value: "preview", count: 2 },
  { key: "team", value: "payments", count: 1 },
]);

describe("labelKeyCounts", () => {
  test("keys in name order, values most common first (ties by value), cluster totals summed", () => {
    assert.deepEqual(
      keys.map((k) => [k.key, k.clusters, k.values.map((v) => v.value)]),
      [
        ["env", 11, ["prod", "dev", "preview"]],
        ["region", 5, ["eu-west-1"]],
        ["team", 1, ["payments"]],
      ],
    );
  });

  test("a key with many values lists the most common and counts the rest, but totals all of them", () => {
    const rows = Array.from({ length: MAX_VALUES_PER_KEY + 7 }, (_, i) => ({ key: "name", value: `c-${i}`, count: i + 1 }));
    const [only] = labelKeyCounts(rows);
    assert.equal(only!.values.length, MAX_VALUES_PER_KEY);
    assert.equal(only!.otherValues, 7);
    assert.equal(only!.values[0]!.value, `c-${MAX_VALUES_PER_KEY + 6}`);
    assert.equal(
      only!.clusters,
      rows.reduce((n, r) => n + r.count, 0),
    );
  });
});

describe("blockedByNewRequiredLabels", () => {
  const summary = { clusters: 20, keys };
  test("counts the clusters lacking each key being added; keys already required are not previewed", () => {
    assert.deepEqual(blockedByNewRequiredLabels(["env"], ["env", "region", "owner", "region"], summary), [
      { key: "region", blocked: 15 },
      { key: "owner", blocked: 20 },
    ]);
    assert.deepEqual(blockedByNewRequiredLabels(["env", "region"], ["env"], summary), []);
  });
});

describe("selectorSuggestions", () => {
  const at = (text: string) => selectorSuggestions(text, text.length, keys);

  test("offers keys by prefix while a key is typed, the most carried first", () => {
    assert.deepEqual(
      at("")?.items.map((i) => i.text),
      ["env", "region", "team"],
    );
    assert.deepEqual(at("env=prod,re")?.items, [{ text: "region", count: 5 }]);
    assert.deepEqual(
      at("!te")?.items.map((i) => i.text),
      ["team"],
    );
    assert.equal(at("zzz"), null, "nothing matches");
    assert.equal(at("env"), null, "the only candidate is already typed");
  });

  test("offers the key's values after =, == and != and inside in (…) / notin (…)", () => {
    assert.deepEqual(
      at("env=")?.items.map((i) => i.text),
      ["prod", "dev", "preview"],
    );
    assert.deepEqual(
      at("env!=p")?.items.map((i) => i.text),
      ["prod", "preview"],
    );
    assert.deepEqual(
      at("region=eu,env==d")?.items.map((i) => i.text),
      ["dev"],
    );
    assert.deepEqual(
      at("env in (prod, p")?.items.map((i) => i.text),
      ["prod", "preview"],
    );
    assert.deepEqual(
      at("env notin (")?.items.map((i) => i.text),
      ["prod", "dev", "preview"],
    );
    assert.equal(at("unknown="), null, "a key no cluster carries has no values");
    assert.equal(at("env=prod "), null, "after a finished term");
  });

  test("choosing replaces the word at the caret, including its part after the caret", () => {
    const text = "env=pr,team=x";
    const s = selectorSuggestions(text, 5, keys)!; // caret after "env=p"
    assert.equal(s.kind, "value");
    assert.deepEqual(applySuggestion(text, s, "preview"), { text: "env=preview,team=x", caret: 11 });
    const k = at("env=prod,r")!;
    assert.deepEqual(applySuggestion("env=prod,r", k, "region"), { text: "env=prod,region", caret: 15 });
  });
});
