// The bounds every selector is held to (lib/domain/selector.ts), at and just past each limit,
// and the paged lists' cursors (lib/domain/paging.ts): a forged one is refused, not passed to SQL.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { main as fleetctl } from "@/lib/cli/fleetctl";
import { idCursorSchema, offsetFromCursorText } from "@/lib/domain/paging";
import { checkSelectorText, parseSelector, SELECTOR_LIMITS, SelectorError } from "@/lib/domain/selector";

const terms = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`).join(",");
const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`).join(",");

function refusal(text: string): SelectorError {
  try {
    parseSelector(text);
  } catch (err) {
    assert.ok(err instanceof SelectorError, String(err));
    return err;
  }
  assert.fail(`accepted: ${text.slice(0, 60)}…`);
}

describe("selector limits", () => {
  test("the limits are 20 terms, 50 values per set, 1,024 characters", () => {
    assert.deepEqual(SELECTOR_LIMITS, { length: 1024, terms: 20, values: 50 });
  });

  test("exactly 20 terms parse; 21 are refused with a message naming the limit", () => {
    assert.equal(parseSelector(terms(20)).length, 20);
    const err = refusal(terms(21));
    assert.equal(err.message, "a selector may have at most 20 terms; this one has 21");
    assert.deepEqual(err.limit, { limit: "terms", max: 20, actual: 21 });
  });

  test("the freezing selector (666 x !a) is refused: on its length, and on its term count when cut to fit", () => {
    const text = Array.from({ length: 666 }, () => "!a").join(",");
    assert.ok(text.length < SELECTOR_LIMITS.length * 2);
    const err = refusal(text.slice(0, 1023));
    assert.equal(err.limit?.limit, "terms");
    assert.match(refusal(text).message, /at most 1,024 characters long; this one has 1,997/);
  });

  test("50 values in a set parse; 51 are refused, in and notin alike", () => {
    assert.equal(parseSelector(`env in (${values(50)})`)[0]!.op, "in");
    assert.equal(parseSelector(`env notin (${values(50)})`)[0]!.op, "notin");
    for (const op of ["in", "notin"]) {
      const err = refusal(`env ${op} (${values(51)})`);
      assert.equal(err.message, `"env ${op} (...)" may list at most 50 values; this one lists 51`);
      assert.deepEqual(err.limit, { limit: "values", max: 50, actual: 51 });
    }
  });

  test("1,024 characters parse; 1,025 are refused; surrounding blanks do not count", () => {
    // `env in (...)` with valid values (at most 63 characters each) filling exactly n characters.
    const exactly = (n: number) => {
      const vals: string[] = [];
      let left = n - "env in ()".length;
      while (left > 0) {
        const len = left > 64 ? 60 : left;
        vals.push("v".repeat(len));
        left -= len + 1;
      }
      return `env in (${vals.join(",")})`;
    };
    assert.equal(exactly(1024).length, 1024);
    assert.equal(parseSelector(exactly(1024)).length, 1);
    assert.equal(parseSelector(`  ${exactly(1024)}  `).length, 1);
    const err = refusal(exactly(1025));
    assert.equal(err.message, "a selector may be at most 1,024 characters long; this one has 1,025");
    assert.deepEqual(err.limit, { limit: "length", max: 1024, actual: 1025 });
  });

  test("the worst accepted selector mixes every kind of term at the limits", () => {
    const worst = [
      `env in (prod,${values(49)})`,
      `tier notin (standard,${values(49)})`,
      "!legacy",
      "team",
      ...Array.from({ length: 16 }, (_, i) => (i % 2 ? `!x${i}` : `region`)),
    ].join(",");
    assert.ok(worst.length <= 1024, String(worst.length));
    assert.equal(parseSelector(worst).length, 20);
  });

  test("a malformed selector is still refused without a limit", () => {
    const err = refusal("env in (a");
    assert.equal(err.limit, undefined);
  });

  test("request schemas get the parser's message and the limit as params", () => {
    const schema = z.object({ selector: z.string().superRefine(checkSelectorText) });
    const parsed = schema.safeParse({ selector: terms(21) });
    assert.equal(parsed.success, false);
    const issue = parsed.error!.issues[0]!;
    assert.equal(issue.message, "a selector may have at most 20 terms; this one has 21");
    assert.deepEqual((issue as { params?: unknown }).params, { limit: "terms", max: 20, actual: 21 });
    assert.equal(schema.safeParse({ selector: terms(20) }).success, true);
  });
});

describe("fleetctl", () => {
  test("checks --selector with the same parser before any request is made", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, FLEET_SERVER: "http://127.0.0.1:9", FLEET_API_KEY: "frk_unused" };
    for (const args of [
      ["gate", "--selector", terms(21)],
      ["clusters", "list", "--selector", terms(21)],
    ])
      await assert.rejects(
        fleetctl(args, env, () => {}),
        { message: "--selector: a selector may have at most 20 terms; this one has 21" },
        args.join(" "),
      );
  });
});

describe("cursors", () => {
  test("id cursors: positive integers up to the largest Int key, nothing else", () => {
    assert.equal(idCursorSchema.parse("1"), 1);
    assert.equal(idCursorSchema.parse("2147483647"), 2_147_483_647);
    for (const bad of ["0", "-1", "1.5", "2147483648", "9007199254740993", "1e3", "0x10", " 5", "abc", ""])
      assert.equal(idCursorSchema.safeParse(bad).success, false, bad);
  });

  test("offset cursors: non-negative integers below a billion, nothing else", () => {
    assert.equal(offsetFromCursorText("0"), 0);
    assert.equal(offsetFromCursorText("25000"), 25_000);
    assert.equal(offsetFromCursorText("999999999"), 999_999_999);
    for (const bad of ["1000000000", "9007199254740993", "-50", "1.5", "1e21", "007", "", "not-a-number", "Infinity"])
      assert.equal(offsetFromCursorText(bad), null, bad);
  });
});
