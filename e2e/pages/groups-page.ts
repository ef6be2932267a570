import { expect, type Locator, type Page } from "@playwright/test";

/** The Groups page and its create/edit dialog. */
export class GroupsPage {
  readonly newGroup: Locator;
  readonly table: Locator;
  readonly dialog: Locator;
  readonly preview: Locator;
  readonly previewSummary: Locator;

  constructor(readonly page: Page) {
    this.newGroup = page.getByRole("button", { name: "New group" });
    this.table = page.getByRole("table", { name: "Cluster groups by name" });
    this.dialog = page.getByRole("dialog");
    this.preview = this.dialog.getByRole("region", { name: "Live preview" });
    this.previewSummary = this.preview.getByTestId("selector-preview-summary");
  }

  async goto() {
    await this.page.goto("/groups");
    await expect(this.page.getByRole("heading", { name: "Cluster groups" })).toBeVisible();
  }

  row(name: string): Locator {
    return this.table.locator(`tr[data-group="${name}"]`);
  }

  field(label: string): Locator {
    return this.dialog.getByLabel(label, { exact: true });
  }
}
