// Registrations answered 503 overloaded are visible: in the attempts log as "deferred
// (overloaded)" (a filter of their own) and on the Overview's registration card as a third bucket,
// neither refused nor failed and outside the success rate. Provoking real overload here would take
// a burst past the e2e server's signing limits (dozens of concurrent CSRs on a shared machine), so
// the rows are written as the server's batch writer writes them (result "overloaded"); that writer
// and the 503 path are covered by tests/integration/deferred-registration-attempts.test.ts and
// tests/system/admission.test.ts.
import { randomBytes } from "node:crypto";
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { execSql, sqlTimestamp } from "../support/database";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";

test.use(asRole("operator"));

test("deferred registrations: their own bucket on the card and their own rows in the attempts log, desktop and phone", async ({
  page,
  apiAs,
}, testInfo) => {
  test.setTimeout(90_000);
  const tag = `overload-${Date.now().toString(36)}-${randomBytes(2).toString("hex")}`;
  // The Overview shows the card once the fleet has a cluster.
  const cluster = await (
    await apiAs("admin")
  ).post("/api/v1/clusters", {
    data: { name: tag, labels: { env: "dev", region: "eu" } },
    headers: SAME_ORIGIN,
  });
  expect(cluster.status(), await cluster.text()).toBe(201);
  const message = "Deferred: the control plane was busy and asked the agent to retry after a delay.";
  for (let i = 0; i < 3; i++)
    await execSql(
      `INSERT INTO "RegistrationAttempt" ("result", "at", "clusterName", "sourceAddress", "message") VALUES (?, ?, ?, ?, ?)`,
      ["overloaded", sqlTimestamp(), `${tag}-${i}`, "10.9.0.1", message],
    );

  // The card: a third bucket, named, and the rate says it leaves them out.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/");
  const deferred = page.getByTestId("registration-deferred");
  await expect(deferred).toContainText(/\d+ deferred \(overloaded\)/);
  expect(Number((await deferred.innerText()).replace(/[^\d]/g, ""))).toBeGreaterThanOrEqual(3);
  const bucket = page.getByTestId("registration-deferrals");
  await expect(bucket).toContainText("Deferred (overloaded)");
  await expect(bucket).toContainText("overloaded");
  await expect(page.getByTestId("registration-failures")).not.toContainText("overloaded");
  await expect(page.getByTestId("registration-refusals")).not.toContainText("overloaded");
  await expect(page.getByText(/the rate leaves them out/)).toBeVisible();
  await saveScreenshots(page, testInfo, "registration-deferred-card");

  // The attempts log: "deferred (overloaded)" rows, with a filter of their own.
  await page.goto("/tokens");
  await page.getByLabel("Result", { exact: true }).selectOption("overloaded");
  const rows = page
    .getByRole("table", { name: /Registration attempts/ })
    .locator("tbody")
    .filter({ hasText: tag });
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText("deferred (overloaded)");
  await expect(rows.first()).toContainText("Deferred (overloaded)");
  await saveScreenshots(page, testInfo, "registration-deferred-attempts");

  // On a phone: the card's buckets stack inside the screen, and the log still names them.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await expect(page.getByTestId("registration-deferrals")).toBeVisible();
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  await savePhoneScreenshots(page, testInfo, "registration-deferred-card-phone");
  await page.goto("/tokens");
  await page.getByLabel("Result", { exact: true }).selectOption("overloaded");
  await expect(rows.first()).toContainText("deferred (overloaded)");
  await savePhoneScreenshots(page, testInfo, "registration-deferred-attempts-phone");
});
