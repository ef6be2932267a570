// A group saved before the selector limits (600 terms, straight into the database as
// the old code allowed) is listed with an "Invalid selector" badge and its reason, not a broken
// page; an operator opens it, sees the limit inline, fixes the selector and the group is counted
// again. New selectors over a limit are refused inline in the dialog.
import { randomBytes } from "node:crypto";
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { GroupsPage } from "../pages/groups-page";
import { execSql, sqlTimestamp } from "../support/database";

test.use(asRole("operator"));

test("an invalid stored group shows its reason and can be fixed; over-limit selectors are refused inline", async ({
  page,
  apiAs,
}) => {
  // A cold first render of /groups plus three dialog states: more than 30 s on a busy 2-core runner.
  test.setTimeout(60_000);
  const run = randomBytes(3).toString("hex");
  const name = `e2e-legacy-${run}`;
  const id = `grp_e2e_${run}`;
  const stored = Array.from({ length: 600 }, () => "!a").join(",");
  const now = sqlTimestamp();
  await execSql(`INSERT INTO "ClusterGroup" ("id", "name", "selector", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?)`, [
    id,
    name,
    stored,
    now,
    now,
  ]);

  const groups = new GroupsPage(page);
  await groups.goto();
  const row = groups.row(name);
  await expect(row.getByText("Invalid selector", { exact: true })).toBeVisible();
  await expect(row.getByTestId("group-selector-error")).toContainText(
    "a selector may be at most 1,024 characters long; this one has 1,799. It matches no cluster until you edit it.",
  );

  // Editing shows the same limit inline, and a fixed selector is saved and counted.
  await row.getByRole("button", { name: `Edit ${name}` }).click();
  const selector = groups.field("Label selector");
  await expect(selector).toHaveAttribute("aria-invalid", "true");
  await expect(groups.dialog.locator("#group-selector-error")).toHaveText(
    "a selector may be at most 1,024 characters long; this one has 1,799",
  );
  await selector.fill(Array.from({ length: 21 }, (_, i) => `!k${i}`).join(","));
  await expect(groups.dialog.locator("#group-selector-error")).toHaveText(
    "a selector may have at most 20 terms; this one has 21",
  );
  await selector.fill(`env in (${Array.from({ length: 51 }, (_, i) => `v${i}`).join(",")})`);
  await expect(groups.dialog.locator("#group-selector-error")).toHaveText(
    '"env in (...)" may list at most 50 values; this one lists 51',
  );
  await selector.fill("!a");
  await expect(selector).not.toHaveAttribute("aria-invalid", "true");
  await groups.dialog.getByRole("button", { name: "Save changes" }).click();
  await expect(groups.dialog).toHaveCount(0);
  await expect(row.getByTestId("group-selector-error")).toHaveCount(0);
  await expect(row).toContainText(/\d+ clusters?/);

  const operator = await apiAs("operator");
  expect((await operator.delete(`/api/v1/groups/${id}`, { headers: SAME_ORIGIN })).status()).toBe(204);
});
