// Refused registrations past their source's budget are counted, not listed one by one: the Tokens
// page says how many were refused in the last hour and from where, and the counted row shows its
// count. The rows are written as the server's batch writer writes them (one row with a count); the
// writer and the budget are covered by tests/integration/refusal-counting.test.ts.
import { expect, asRole, test } from "../fixtures";
import { execSql, sqlTimestamp } from "../support/database";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";

test.use(asRole("viewer"));

test("the Tokens page sums counted refusals in a card and shows each counted row's count", async ({ page }, testInfo) => {
  const source = `203.0.113.${100 + Math.floor(Math.random() * 150)}`;
  await execSql(
    `INSERT INTO "RegistrationAttempt" ("result", "at", "sourceAddress", "message", "count") VALUES (?, ?, ?, ?, ?)`,
    ["token_invalid", sqlTimestamp(), source, "The registration token is malformed or unknown.", 12_431],
  );
  await page.goto("/tokens");
  const card = page.getByTestId("refusal-summary");
  await expect(card).toContainText(source);
  await expect(card).toContainText(/12,431 (refused )?from/);
  await expect(card).toContainText("in the last hour");

  await page.getByLabel("Result", { exact: true }).selectOption("token_invalid");
  const row = page
    .getByRole("table", { name: /Registration attempts/ })
    .locator("tbody")
    .filter({ hasText: source });
  await expect(row.getByTestId("attempt-count")).toHaveText("×12,431");
  await saveScreenshots(page, testInfo, "registration-refusal-summary");

  // On a phone the card wraps inside the screen: the address and the count stay readable.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(card).toContainText(source);
  const box = (await card.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  await savePhoneScreenshots(page, testInfo, "registration-refusal-summary-phone");
});
