// The one CSV encoder of every export: RFC 4180 quoting and a guard against spreadsheet formulas.
import assert from "node:assert/strict";
import { test } from "node:test";
import { csvCell, csvRow } from "@/lib/domain/csv";
import { auditTargetHref, auditTargetLabel } from "@/lib/domain/audit-targets";

test("plain values pass as they are; empty for null", () => {
  assert.equal(csvCell("prod-eu-1"), "prod-eu-1");
  assert.equal(csvCell(42), "42");
  assert.equal(csvCell(-3), "-3");
  assert.equal(csvCell(true), "true");
  assert.equal(csvCell(null), "");
  assert.equal(csvCell(undefined), "");
  assert.equal(csvCell("2026-12-01T08:14:03.000Z"), "2026-12-01T08:14:03.000Z");
});

test("commas, quotes, line breaks and edge spaces are quoted, quotes doubled", () => {
  assert.equal(csvCell("a,b"), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell("two\nlines"), '"two\nlines"');
  assert.equal(csvCell("cr\rhere"), '"cr\rhere"');
  assert.equal(csvCell(" padded "), '" padded "');
  assert.equal(csvCell('{"to":300,"from":180}'), '"{""to"":300,""from"":180}"');
});

test("text a spreadsheet would run as a formula is kept as text", () => {
  for (const evil of ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]) {
    const cell = csvCell(evil);
    const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
    assert.equal(unquoted, `'${evil}`, JSON.stringify(evil));
  }
  // Only text: a negative number is a number.
  assert.equal(csvCell(-5), "-5");
  assert.equal(csvCell("=a,b"), `"'=a,b"`);
});

test("a row is its cells joined by commas, ended by CRLF", () => {
  assert.equal(csvRow(["id", 1, null, "a,b"]), 'id,1,,"a,b"\r\n');
});

test("audit targets link to their page; unknown types and missing ids do not", () => {
  assert.equal(auditTargetHref("cluster", "c 1"), "/clusters/c%201");
  assert.equal(auditTargetHref("rollout", "r1"), "/rollouts/r1");
  assert.equal(auditTargetHref("group", "g1"), "/groups");
  assert.equal(auditTargetHref("registrationToken", "t1"), "/tokens");
  assert.equal(auditTargetHref("user", "u1"), "/settings");
  assert.equal(auditTargetHref("system", "x"), null);
  assert.equal(auditTargetHref("teapot", "x"), null);
  assert.equal(auditTargetHref("constructor", "x"), null);
  assert.equal(auditTargetHref("cluster", null), null);
  assert.equal(auditTargetLabel("registrationToken"), "token");
  assert.equal(auditTargetLabel("teapot"), "teapot");
});
