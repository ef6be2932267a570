import { expect, type Locator, type Page } from "@playwright/test";

export class LoginPage {
  readonly form: Locator;
  readonly email: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  /** The form's own error (Next's route announcer is an alert too, outside the form). */
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.form = page.locator("form").filter({ has: page.getByRole("button", { name: "Sign in" }) });
    this.email = this.form.getByLabel("Email");
    this.password = this.form.getByLabel("Password");
    this.submit = this.form.getByRole("button", { name: "Sign in" });
    this.error = this.form.getByRole("alert");
  }

  async goto() {
    await this.page.goto("/login");
    await expect(this.submit).toBeVisible();
  }

  async signIn(email: string, password: string) {
    await this.email.fill(email);
    await this.password.fill(password);
    await this.submit.click();
  }

  async expectOnPage() {
    await expect(this.page).toHaveURL(/\/login(\?|$)/);
    await expect(this.submit).toBeVisible();
  }
}
