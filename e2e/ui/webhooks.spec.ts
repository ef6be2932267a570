// Webhooks in Settings against a real receiver on loopback started here: allow private targets,
// create a subscription (the secret shown once), send a test event, see it signed with that
// secret at the receiver and delivered in the log; the same on a 390 px phone, no wider than it.
import { createHmac } from "node:crypto";
import http from "node:http";
import AxeBuilder from "@axe-core/playwright";
import type { AddressInfo } from "node:net";
import { asRole, expect, test } from "../fixtures";
import { saveScreenshots } from "../support/screenshots";

test.use(asRole("admin"));

type Received = { timestamp: string; signature: string; delivery: string; body: string };

let server: http.Server;
let receiverUrl = "";
const received: Received[] = [];

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        timestamp: String(req.headers["x-fleet-timestamp"] ?? ""),
        signature: String(req.headers["x-fleet-signature-v2"] ?? ""),
        delivery: String(req.headers["x-fleet-delivery"] ?? ""),
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/e2e-hook`;
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

for (const viewport of [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`create a webhook, send a test event, see it delivered (${viewport.name})`, async ({ page }, testInfo) => {
    test.slow(); // a settings page with several lists, a delivery job tick and a poll, on a shared machine
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const url = `${receiverUrl}/${viewport.name}`;
    await page.goto("/settings");
    await expect(page.getByRole("button", { name: "New webhook" })).toBeVisible({ timeout: 30_000 });

    const allow = page.getByRole("checkbox", { name: /Allow webhooks to private addresses/ });
    await expect(allow).toBeVisible();
    if (!(await allow.isChecked())) await allow.click();
    // Saved: the box stays checked once the settings come back (and is enabled again).
    await expect(allow).toBeEnabled();
    await expect(allow).toBeChecked();

    await page.getByRole("button", { name: "New webhook" }).click();
    const dialog = page.getByRole("dialog", { name: "New webhook" });
    await dialog.getByLabel("URL").fill(url);
    await expect(dialog.getByRole("checkbox", { name: "Cluster NotReady" })).toBeChecked();
    await dialog.getByRole("checkbox", { name: "Rollout paused" }).check();
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    const created = page.getByRole("dialog", { name: "Webhook created" });
    const secret = (await created.getByTestId("webhook-secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await expect(created.getByRole("button", { name: "Copy secret" })).toBeVisible();
    await created.getByRole("button", { name: "I have copied it" }).click();
    await expect(created).toBeHidden();

    const row = page.locator(`tr[data-webhook="${url}"]`);
    await expect(row).toContainText("enabled");
    await expect(row.getByTestId("webhook-last-delivery")).toHaveText("nothing sent yet");
    const before = received.length;
    await row.getByRole("button", { name: `Send test to ${url}` }).click();
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(before);
    const got = received.at(-1)!;
    // The receiver checks the signature with the secret the dialog showed.
    expect(got.signature).toBe(`sha256=${createHmac("sha256", secret).update(`${got.timestamp}.${got.body}`).digest("hex")}`);
    expect(JSON.parse(got.body)).toMatchObject({ id: got.delivery, type: "webhook.test" });

    await expect(row.getByTestId("webhook-last-delivery")).toContainText("delivered", { timeout: 15_000 });
    await row.getByRole("button", { name: `Log of ${url}` }).click();
    const log = page.getByRole("dialog", { name: "Delivery log" });
    const entry = log.locator(`tr[data-delivery="${got.delivery}"]`);
    await expect(entry).toContainText("Test event");
    await expect(entry).toContainText("delivered");
    await expect(entry).toContainText("1 attempt");
    await expect(entry).toContainText("HTTP 200");

    if (viewport.name === "phone") {
      const widths = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollWidth, inner: innerWidth }));
      expect(widths.scroll, `settings is ${widths.scroll} px wide on a ${widths.inner} px screen`).toBeLessThanOrEqual(
        widths.inner,
      );
    } else {
      // The accessibility spec scans Settings empty; here it has a subscription and its log open.
      for (const dark of [false, true]) {
        await page.evaluate((d) => document.documentElement.classList.toggle("dark", d), dark);
        await page.waitForTimeout(300); // colour transitions end before contrast is measured
        const { violations } = await new AxeBuilder({ page }).analyze();
        const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        expect(
          serious.map((v) => `${v.id}: ${v.nodes[0]?.target.join(" ")}`),
          dark ? "dark" : "light",
        ).toEqual([]);
      }
      await saveScreenshots(page, testInfo, "webhooks-log");
    }
    await log.getByRole("button", { name: "Close" }).click();
    await expect(log).toBeHidden();

    // Keyboard: the row's actions are buttons in the tab order; delete goes through its confirmation.
    await row.getByRole("button", { name: `Delete ${url}` }).focus();
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("dialog", { name: "Delete this webhook?" });
    await confirm.getByRole("button", { name: "Delete webhook" }).click();
    await expect(row).toBeHidden();

    // Private targets off again, as the fleet ships.
    await allow.click();
    await expect(allow).toBeEnabled();
    await expect(allow).not.toBeChecked();
  });
}
