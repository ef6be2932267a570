// Policies in the browser: create one targeted at a group (its JSON checked before it is sent),
// publish a new revision from the current content, change its targets, delete it. A viewer reads
// the list without any controls, and the API refuses the viewer's writes.
import { SAME_ORIGIN, asRole, expect, expectApiError, test } from "../fixtures";
import { saveScreenshots } from "../support/screenshots";

test.describe("policies", () => {
  test.use(asRole("operator"));

  test("create, publish a revision, retarget and delete a policy", async ({ page, apiAs }, testInfo) => {
    const run = Date.now().toString(36);
    const operator = await apiAs("operator");
    const group = await operator.post("/api/v1/groups", {
      data: { name: `e2e-pol-${run}`, selector: `env=e2e-pol-${run}` },
      headers: SAME_ORIGIN,
    });
    expect(group.status(), await group.text()).toBe(201);
    const groupName = `e2e-pol-${run}`;
    const name = `e2e-baseline-${run}`;

    await page.goto("/policies");
    await page.getByRole("button", { name: "New policy" }).click();
    const create = page.getByRole("dialog", { name: "New policy" });
    await create.getByLabel("Name").fill(name);
    await create.getByLabel("Description (optional)").fill("Pod security for the e2e clusters");
    await create.getByRole("checkbox", { name: new RegExp(groupName) }).check();

    // Broken JSON is caught in the browser: the parser's message shows and nothing is sent.
    const content = create.getByLabel("Content (JSON)");
    await content.fill('{ "podSecurity": "restricted", }');
    await expect(create.getByText(/Not valid JSON/)).toBeVisible();
    await expect(content).toHaveAttribute("aria-invalid", "true");
    await expect(create.getByRole("button", { name: "Create policy" })).toBeDisabled();
    await content.fill('["not", "an", "object"]');
    await expect(create.getByText("Must be a JSON object")).toBeVisible();
    await content.fill('{ "podSecurity": "restricted", "networkPolicy": { "defaultDeny": true } }');
    await create.getByRole("button", { name: "Create policy" }).click();
    await expect(create).toBeHidden();

    const row = page.locator(`tr[data-policy="${name}"]`);
    await expect(row.getByTestId("policy-revision")).toHaveText("r1");
    await expect(row.getByRole("list", { name: `Target groups of ${name}` })).toContainText(groupName);

    // Publish revision 2, starting from revision 1's content.
    await row.getByRole("button", { name: `Publish revision of ${name}` }).click();
    const publish = page.getByRole("dialog", { name: `Publish revision 2 of ${name}` });
    const editor = publish.getByLabel("Content of revision 2 (JSON)");
    await expect(editor).toHaveValue(/"podSecurity": "restricted"/);
    await expect(publish.getByRole("button", { name: "Publish revision 2" })).toBeDisabled(); // unchanged
    await editor.fill('{ "podSecurity": "baseline", "networkPolicy": { "defaultDeny": true } }');
    await publish.getByRole("button", { name: "Publish revision 2" }).click();
    await expect(publish).toBeHidden();
    await expect(row.getByTestId("policy-revision")).toHaveText("r2");
    await row.getByRole("button", { name: `Show the content of ${name}` }).click();
    await expect(page.getByText('"podSecurity": "baseline"')).toBeVisible();
    await saveScreenshots(page, testInfo, "policies");

    // Change the targets: without groups it applies nowhere, and says so.
    await row.getByRole("button", { name: `Edit ${name}` }).click();
    const edit = page.getByRole("dialog", { name: `Edit ${name}` });
    await edit.getByRole("checkbox", { name: new RegExp(groupName) }).uncheck();
    await edit.getByRole("button", { name: "Save" }).click();
    await expect(edit).toBeHidden();
    await expect(row).toContainText("No groups: applies to no cluster");

    // Delete, with confirmation.
    await row.getByRole("button", { name: `Delete ${name}` }).click();
    await page
      .getByRole("dialog", { name: `Delete policy “${name}”?` })
      .getByRole("button", { name: "Delete policy" })
      .click();
    await expect(row).toHaveCount(0);
  });
});

test.describe("policies as a viewer", () => {
  test.use(asRole("viewer"));

  test("reads policies without controls; the API refuses the writes", async ({ page, apiAs }) => {
    await page.goto("/policies");
    await expect(page.getByRole("heading", { name: "Policies" })).toBeVisible();
    await expect(page.getByText("needs the operator role")).toBeVisible();
    await expect(page.getByRole("button", { name: /New policy|Publish revision|Delete/ })).toHaveCount(0);
    const viewer = await apiAs("viewer");
    await expectApiError(
      await viewer.post("/api/v1/policies", { data: { name: "sneaky", content: {} }, headers: SAME_ORIGIN }),
      403,
      "forbidden",
    );
  });
});
