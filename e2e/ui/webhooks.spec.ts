// The Webhooks page against a real receiver on loopback started here: allow private targets,
// create a subscription (the secret shown once), send a test event, see it signed with that
// secret at the receiver and delivered in the log; the same on a 390 px phone, no wider than it.
// A subscription scoped by a label selector hears only of its clusters, and its log names them.
import { createHmac } from "node:crypto";
import http from "node:http";
import AxeBuilder from "@axe-core/playwright";
import type { AddressInfo } from "node:net";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { enrolTestAgent, type TestAgent } from "../support/agent-api";
import { okJson } from "../support/agent-process";
import { saveScreenshots } from "../support/screenshots";

test.use(asRole("admin"));

type Received = { timestamp: string; signature: string; legacySignature: string; delivery: string; body: string };

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
        legacySignature: String(req.headers["x-fleet-signature"] ?? ""),
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
    test.slow(); // a delivery job tick and a poll, on a shared machine
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const url = `${receiverUrl}/${viewport.name}`;
    await page.goto("/webhooks");
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
    // The replayable body-only signature is not sent unless the subscription asks for it.
    expect(got.legacySignature).toBe("");
    await expect(row.getByTestId("webhook-legacy-signature")).toHaveCount(0);

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
      expect(widths.scroll, `the webhooks page is ${widths.scroll} px wide on a ${widths.inner} px screen`).toBeLessThanOrEqual(
        widths.inner,
      );
    } else {
      // The accessibility spec scans the page with no dialog open; here it has a subscription and its log open.
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

    if (viewport.name === "desktop") {
      // Opting into the legacy header is a choice the list keeps showing as replayable.
      await row.getByRole("button", { name: `Edit ${url}` }).click();
      const edit = page.getByRole("dialog", { name: "Edit webhook" });
      await edit.getByRole("checkbox", { name: /Also send the legacy X-Fleet-Signature header/ }).check();
      await edit.getByRole("button", { name: "Save changes" }).click();
      await expect(edit).toBeHidden();
      await expect(row.getByTestId("webhook-legacy-signature")).toHaveText(/replayable/);
      const sent = received.length;
      await row.getByRole("button", { name: `Send test to ${url}` }).click();
      await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(sent);
      const legacy = received.at(-1)!;
      expect(legacy.legacySignature).toBe(`sha256=${createHmac("sha256", secret).update(legacy.body).digest("hex")}`);
    }

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

test("a subscription scoped by a label selector is sent only its clusters' events; the log names them and explains suppressed", async ({
  page,
  playwright,
  apiAs,
}, testInfo) => {
  test.setTimeout(120_000);
  const admin = await apiAs("admin");
  const run = Date.now().toString(36);
  const url = `${receiverUrl}/scoped-${run}`;
  const token = await okJson<{ token: string }>(
    await admin.post("/api/v1/registration-tokens", {
      data: { name: `e2e hook scope ${run}`, ttlSeconds: 600, maxClusters: 2 },
      headers: SAME_ORIGIN,
    }),
  );
  const inside = await enrolTestAgent(playwright, token.token, `e2e-hook-${run}-in`, {
    env: "e2e",
    region: "hooks",
    "e2e-hook": run,
    side: "in",
  });
  const outside = await enrolTestAgent(playwright, token.token, `e2e-hook-${run}-out`, {
    env: "e2e",
    region: "hooks",
    "e2e-hook": run,
    side: "out",
  });
  // The status the fleet recorded (the transition that enqueues webhooks), not the one computed live.
  const status = async (a: TestAgent) => {
    const detail = await okJson<{ events: { kind: string; to: string; at: string }[] }>(
      await admin.get(`/api/v1/clusters/${a.clusterId}`),
    );
    return detail.events.filter((e) => e.kind === "status").sort((x, y) => y.at.localeCompare(x.at))[0]?.to;
  };
  /** One heartbeat, then the status the fleet recorded for the cluster. */
  const beat = async (a: TestAgent, o?: Parameters<TestAgent["heartbeat"]>[0]) => {
    await a.heartbeat(o);
    return status(a);
  };
  let webhookId: string | undefined;
  try {
    for (const a of [inside, outside]) {
      await expect.poll(() => beat(a), { message: `${a.name} Ready`, timeout: 20_000 }).toBe("Ready");
    }

    // A bad selector is refused by the API with a code naming the field.
    const refused = await admin.post("/api/v1/webhooks", {
      data: { url, events: ["cluster.notReady"], selector: "side in (in" },
      headers: SAME_ORIGIN,
    });
    expect(refused.status()).toBe(400);
    const problem = (await refused.json()) as { error: string; details: { field: string }[] };
    expect(problem.error).toBe("invalid_request");
    expect(problem.details.map((d) => d.field)).toContain("selector");

    await page.goto("/webhooks");
    const allow = page.getByRole("checkbox", { name: /Allow webhooks to private addresses/ });
    await expect(allow).toBeVisible({ timeout: 30_000 });
    if (!(await allow.isChecked())) await allow.click();
    await expect(allow).toBeEnabled();
    await expect(allow).toBeChecked();

    await page.getByRole("button", { name: "New webhook" }).click();
    const dialog = page.getByRole("dialog", { name: "New webhook" });
    await dialog.getByLabel("URL").fill(url);
    const scope = dialog.getByLabel("Only clusters matching (optional)");
    await scope.fill("side in (in");
    await expect(dialog.getByText("unbalanced '('")).toBeVisible();
    await expect(dialog.getByTestId("webhook-scope-count")).toHaveText("Fix the selector to see what it matches");
    await scope.fill(`e2e-hook=${run},side=in`);
    await expect(dialog.getByTestId("webhook-scope-count")).toHaveText("Matches 1 cluster now");
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    await page.getByRole("dialog", { name: "Webhook created" }).getByRole("button", { name: "I have copied it" }).click();
    const row = page.locator(`tr[data-webhook="${url}"]`);
    await expect(row.getByTestId("webhook-scope")).toHaveText(`Clusters matching e2e-hook=${run},side=in`);
    const list = await okJson<{ items: { id: string; url: string; selector: string | null }[] }>(
      await admin.get("/api/v1/webhooks"),
    );
    webhookId = list.items.find((w) => w.url === url)?.id;
    expect(list.items.find((w) => w.url === url)?.selector).toBe(`e2e-hook=${run},side=in`);

    // Both clusters blip NotReady and come back within the debounce window: the scoped
    // subscription gets only the inside one's NotReady, suppressed; the outside one's none at all.
    for (const a of [inside, outside]) {
      await expect
        .poll(() => beat(a, { apiServer: "down" }), {
          message: `${a.name} NotReady`,
          timeout: 20_000,
        })
        .toBe("NotReady");
      await expect.poll(() => beat(a), { message: `${a.name} Ready again`, timeout: 20_000 }).toBe("Ready");
    }
    await row.getByRole("button", { name: `Send test to ${url}` }).click();
    type Delivery = { eventType: string; clusterId: string | null; state: string };
    const deliveries = async () =>
      (await okJson<{ items: Delivery[] }>(await admin.get(`/api/v1/webhooks/${webhookId}/deliveries`))).items;
    await expect
      .poll(async () => (await deliveries()).map((d) => `${d.eventType}:${d.state}`).sort(), { timeout: 20_000 })
      .toEqual(["cluster.notReady:suppressed", "webhook.test:delivered"]);
    expect((await deliveries()).some((d) => d.clusterId === outside.clusterId)).toBe(false);

    await row.getByRole("button", { name: `Log of ${url}` }).click();
    const log = page.getByRole("dialog", { name: "Delivery log" });
    const suppressed = log.locator("tr", { hasText: "Cluster NotReady" });
    await expect(suppressed.getByRole("link", { name: inside.name })).toHaveAttribute("href", `/clusters/${inside.clusterId}`);
    await expect(suppressed.getByTestId("suppressed-note")).toHaveText(
      "a NotReady that recovered within the debounce window (60 s); not sent",
    );
    await expect(log.locator("tr", { hasText: "Test event" }).getByTestId("delivery-cluster")).toHaveText("fleet");
    await expect(log).not.toContainText(outside.name);
    await saveScreenshots(page, testInfo, "webhooks-scoped-log");
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(suppressed.getByTestId("suppressed-note")).toBeVisible();
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
      await page.waitForTimeout(300);
      const file = testInfo.outputPath(`webhooks-scoped-log-phone-${theme}.png`);
      await page.screenshot({ path: file });
      await testInfo.attach(`webhooks-scoped-log-phone-${theme}`, { path: file, contentType: "image/png" });
    }
    await page.evaluate(() => document.documentElement.classList.remove("dark"));
    await log.getByRole("button", { name: "Close" }).click();

    // Editable: widening the scope to both sides is saved, shown and audited.
    await row.getByRole("button", { name: `Edit ${url}` }).click();
    const edit = page.getByRole("dialog", { name: "Edit webhook" });
    await edit.getByLabel("Only clusters matching (optional)").fill(`e2e-hook=${run}`);
    await expect(edit.getByTestId("webhook-scope-count")).toHaveText("Matches 2 clusters now");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect(edit).toBeHidden();
    await expect(row.getByTestId("webhook-scope")).toHaveText(`Clusters matching e2e-hook=${run}`);
    const audit = await okJson<{ items: { action: string; details: { changes?: { selector?: unknown } } }[] }>(
      await admin.get(`/api/v1/audit?target=${webhookId}&limit=10`),
    );
    expect(audit.items.find((e) => e.action === "webhook.update")?.details.changes?.selector).toEqual({
      from: `e2e-hook=${run},side=in`,
      to: `e2e-hook=${run}`,
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await allow.click();
    await expect(allow).toBeEnabled();
    await expect(allow).not.toBeChecked();
  } finally {
    if (webhookId) await admin.delete(`/api/v1/webhooks/${webhookId}`, { headers: SAME_ORIGIN });
    // As the fleet ships, whatever happened above.
    await admin.patch("/api/v1/settings", { data: { webhookAllowPrivateTargets: false }, headers: SAME_ORIGIN });
    await inside.dispose();
    await outside.dispose();
  }
});
