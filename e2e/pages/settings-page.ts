import { expect, type Locator, type Page } from "@playwright/test";

export class SettingsPage {
  readonly notReadyThreshold: Locator;
  readonly heartbeatInterval: Locator;
  readonly certificateValidity: Locator;
  readonly requiredLabels: Locator;
  readonly heartbeatHistoryRetention: Locator;
  readonly auditLogRetention: Locator;
  readonly save: Locator;
  readonly saved: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.notReadyThreshold = page.getByLabel("NotReady threshold (seconds)");
    this.heartbeatInterval = page.getByLabel("Heartbeat interval (seconds)");
    this.certificateValidity = page.getByLabel("Certificate validity (days)");
    this.requiredLabels = page.getByLabel("Required labels");
    this.heartbeatHistoryRetention = page.getByLabel("Heartbeat history (days)");
    this.auditLogRetention = page.getByLabel("Audit log (days)");
    this.save = page.getByRole("button", { name: "Save settings" });
    this.saved = page.getByRole("status").filter({ hasText: "Saved." });
    this.error = page.locator("form").getByRole("alert");
  }

  async goto() {
    const response = await this.page.goto("/settings");
    return response;
  }

  /** Waits until the form holds the stored settings (it loads them after the page renders). */
  async expectLoaded() {
    await expect(this.save).toBeVisible();
    await expect(this.notReadyThreshold).not.toHaveValue("");
  }

  async setValue(field: Locator, value: string) {
    await field.fill(value);
  }

  /** Clicks "Save settings" and returns the settings the server answered with (fails on an error). */
  async submitAndWaitForServer(): Promise<Record<string, unknown>> {
    const [response] = await Promise.all([
      this.page.waitForResponse((r) => r.url().endsWith("/api/v1/settings") && r.request().method() === "PATCH"),
      this.save.click(),
    ]);
    expect(response.status(), await response.text()).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }
}
