import { expect, type Locator, type Page } from "@playwright/test";

/** The signed-in console's frame: sidebar navigation, user menu, theme toggle. */
export class Shell {
  readonly nav: Locator;
  readonly userMenuButton: Locator;
  readonly role: Locator;
  readonly signOutItem: Locator;
  readonly themeToggle: Locator;

  constructor(readonly page: Page) {
    this.nav = page.getByRole("navigation", { name: "Main" });
    this.userMenuButton = page
      .locator("header")
      .getByRole("button")
      .filter({ has: page.getByTestId("user-role") });
    this.role = page.locator("header").getByTestId("user-role");
    this.signOutItem = page.getByRole("menuitem", { name: "Sign out" });
    this.themeToggle = page.getByRole("button", { name: /Switch to (dark|light) theme/ });
  }

  navLink(name: string): Locator {
    return this.nav.getByRole("link", { name, exact: true });
  }

  /** The nav's entries in order; a live count beside one ("Approvals 2 waiting") is not part of its name. */
  async expectNav(names: readonly string[]) {
    const entry = (name: string) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\d+ waiting)?$`);
    await expect(this.nav.getByRole("link")).toHaveText(names.map(entry));
  }

  async expectSignedInAs(email: string, role: string) {
    await expect(this.userMenuButton).toContainText(email);
    await expect(this.role).toHaveText(role);
  }

  /** From a freshly loaded page: the first Tab reaches the skip link, on screen; Enter moves focus to <main>. */
  async skipToContent() {
    await this.page.keyboard.press("Tab");
    const skip = this.page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await this.page.keyboard.press("Enter");
    await expect(this.page.locator("main")).toBeFocused();
  }

  async signOut() {
    await this.userMenuButton.click();
    await this.signOutItem.click();
  }
}
