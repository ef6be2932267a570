import { expect, type Locator, type Page } from "@playwright/test";

export class AuditPage {
  readonly filters: Locator;
  readonly table: Locator;
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.filters = page.getByRole("search", { name: "Filter the audit log" });
    this.table = page.getByRole("table");
    this.rows = this.table.locator("tbody tr");
  }

  /** Opens the page (with a query string, if given); for the signed-in, waits until the list has loaded (the page is interactive then). */
  async goto(query = "") {
    const response = await this.page.goto(`/audit${query}`);
    if (response?.status() === 200) await this.expectLoaded();
    return response;
  }

  async reload() {
    await this.page.reload();
    await this.expectLoaded();
  }

  /** The list (or its empty state) is on screen: the page has hydrated and fetched. */
  async expectLoaded() {
    await expect(this.table.or(this.page.getByText(/^(Nothing has happened yet|No entries match these filters)$/))).toBeVisible();
  }

  filter(name: "Actor" | "Action" | "Target name or id"): Locator {
    return this.filters.getByLabel(name);
  }

  /** Fills one filter and applies the form (Enter), which puts the filters in the URL. */
  async filterBy(name: "Actor" | "Action" | "Target name or id", value: string) {
    await this.filter(name).fill(value);
    await this.filter(name).press("Enter");
  }

  /** Rows whose Action cell is exactly `action`. */
  rowsWithAction(action: string): Locator {
    return this.rows.filter({ has: this.page.getByRole("cell", { name: action, exact: true }) });
  }

  async expectOnlyAction(action: string) {
    await expect(this.rows.first()).toBeVisible();
    // The filtered page replaces the unfiltered one when its request returns: poll until it has.
    await expect
      .poll(
        async () => {
          const actions = await this.rows.locator("td:nth-child(3)").allInnerTexts();
          return actions.length > 0 && actions.every((a) => a.trim() === action);
        },
        { message: `every row is ${action}` },
      )
      .toBe(true);
  }
}
