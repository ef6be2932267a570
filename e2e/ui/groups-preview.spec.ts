// Cluster groups in the console: the live preview matches a registered cluster while the selector
// is typed (and explains a half-typed one), the group is created, edited and deleted; a viewer
// only looks.
import { randomBytes } from "node:crypto";
import type { APIRequestContext, PlaywrightWorkerArgs } from "@playwright/test";
import { registerThroughAgentPort } from "../support/agent-api";
import { asRole, expect, expectApiError, SAME_ORIGIN, test } from "../fixtures";
import { GroupsPage } from "../pages/groups-page";
import { saveScreenshotsOfUrl } from "../support/screenshots";

/** Registers a cluster through the agent protocol, with a token minted for it. */
async function registerCluster(
  playwright: PlaywrightWorkerArgs["playwright"],
  operator: APIRequestContext,
  name: string,
  labels: Record<string, string>,
) {
  const minted = await operator.post("/api/v1/registration-tokens", { data: { name: `for ${name}` }, headers: SAME_ORIGIN });
  expect(minted.status()).toBe(201);
  const { token } = (await minted.json()) as { token: string };
  const res = await registerThroughAgentPort(playwright, token, name, labels);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

test.describe("as an operator", () => {
  test.use(asRole("operator"));

  test("the live preview matches a registered cluster while typing; create, edit and delete the group", async ({
    page,
    apiAs,
    playwright,
  }, testInfo) => {
    // Registers a cluster, types selectors key by key, and saves screenshots in both themes: ~19 s
    // on a quiet machine, over 30 s when the other worker's agents share the 2 cores.
    test.slow();
    const run = randomBytes(3).toString("hex");
    const cluster = `e2e-group-${run}`;
    const team = `team-${run}`;
    await registerCluster(playwright, await apiAs("operator"), cluster, { env: "prod", region: "eu-west-1", team });

    const groups = new GroupsPage(page);
    await groups.goto();
    await groups.newGroup.click();
    await expect(groups.dialog).toBeVisible();
    await expect(groups.field("Name")).toBeFocused();
    const groupName = `e2e-${run}`;
    await groups.field("Name").fill(groupName);

    // Half-typed: the parse error shows inline and nothing is asked of the server.
    const selector = groups.field("Label selector");
    await selector.pressSequentially(`team in (${team}`, { delay: 20 });
    await expect(selector).toHaveAttribute("aria-invalid", "true");
    await expect(groups.dialog).toContainText("unbalanced '('");
    await expect(groups.previewSummary).toHaveText("Fix the selector to see matches");

    // Completed: the preview finds the cluster, with its status, before anything is saved.
    await selector.pressSequentially(`),env=prod`, { delay: 20 });
    await expect(selector).not.toHaveAttribute("aria-invalid", "true");
    await expect(groups.previewSummary).toHaveText("Matches 1 cluster");
    const match = groups.preview.getByRole("listitem").filter({ hasText: cluster });
    await expect(match).toBeVisible();
    await expect(match).toContainText(/Pending|Ready|NotReady/);

    // A selector nothing matches says so.
    await selector.fill(`team=${team},env=staging`);
    await expect(groups.previewSummary).toHaveText("Matches no clusters yet");
    await selector.fill(`team=${team}`);
    await expect(groups.previewSummary).toHaveText("Matches 1 cluster");

    await groups.dialog.getByRole("button", { name: "Create group" }).click();
    await expect(groups.dialog).toHaveCount(0);
    const row = groups.row(groupName);
    await expect(row).toContainText(`team=${team}`);
    await expect(row).toContainText("1 cluster");

    // Edit: the description, with the name kept.
    await row.getByRole("button", { name: `Edit ${groupName}` }).click();
    await expect(groups.field("Name")).toHaveValue(groupName);
    await groups.field("Description (optional)").fill("the e2e cluster's team");
    await groups.dialog.getByRole("button", { name: "Save changes" }).click();
    await expect(groups.dialog).toHaveCount(0);
    await expect(row).toContainText("the e2e cluster's team");

    // A second group with the same name is refused at the name field.
    await groups.newGroup.click();
    await groups.field("Name").fill(groupName);
    await groups.field("Label selector").fill("env");
    await groups.dialog.getByRole("button", { name: "Create group" }).click();
    await expect(groups.field("Name")).toHaveAttribute("aria-invalid", "true");
    await expect(groups.dialog).toContainText(`A group named ${groupName} already exists.`);
    await page.keyboard.press("Escape");
    await expect(groups.dialog).toHaveCount(0);

    await saveScreenshotsOfUrl(page, testInfo, "/groups", "groups", async () => {
      await expect(groups.row(groupName)).toBeVisible();
    });

    // The group's count opens the cluster list filtered to the group.
    await groups
      .row(groupName)
      .getByRole("link", { name: /^1\s+cluster$/ })
      .click();
    await expect(page).toHaveURL(/\/clusters\?group=/);
    await expect(page.getByRole("link", { name: cluster })).toBeVisible();
    await groups.goto();

    // Delete, behind a confirmation.
    await groups
      .row(groupName)
      .getByRole("button", { name: `Delete ${groupName}` })
      .click();
    const confirm = page.getByRole("dialog", { name: `Delete group “${groupName}”?` });
    await expect(confirm).toContainText("stay registered");
    await confirm.getByRole("button", { name: "Delete group" }).click();
    await expect(confirm).toHaveCount(0);
    await expect(groups.row(groupName)).toHaveCount(0);
  });
});

test.describe("as a viewer", () => {
  test.use(asRole("viewer"));

  test("a viewer sees groups but no controls, and the API refuses a viewer's group", async ({ page, apiAs }) => {
    const name = `e2e-viewer-${randomBytes(3).toString("hex")}`;
    const admin = await apiAs("admin");
    expect((await admin.post("/api/v1/groups", { data: { name, selector: "env=prod" }, headers: SAME_ORIGIN })).status()).toBe(
      201,
    );

    const groups = new GroupsPage(page);
    await groups.goto();
    await expect(groups.row(name)).toContainText("env=prod");
    await expect(groups.newGroup).toHaveCount(0);
    await expect(groups.table.getByRole("button")).toHaveCount(0);
    await expect(page.getByText("creating, editing and deleting them needs the operator role")).toBeVisible();

    const viewer = await apiAs("viewer");
    await expectApiError(
      await viewer.post("/api/v1/groups", { data: { name: `${name}-2`, selector: "env" }, headers: SAME_ORIGIN }),
      403,
      "forbidden",
    );
  });
});
