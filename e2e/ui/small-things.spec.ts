// Small things: Settings errors in the form's words under their field (the client's
// check and the server's 400), the preview of the clusters a new required label would block,
// removing a cluster only with its name typed and a reason, and label suggestions by keyboard.
import { randomBytes } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { AGENT_PORT } from "../support/run";
import { saveScreenshots } from "../support/screenshots";
import { call, heartbeatBody, registrationBody, type ClientCert } from "../../tests/helpers/agent-client";

const run = () => randomBytes(3).toString("hex");

async function ok<T>(res: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
  expect(res.ok(), `${res.url()} -> ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

/** A cluster registered through the agent port, and the certificate to heartbeat as it. */
async function registerCluster(operator: APIRequestContext, name: string, labels: Record<string, string>) {
  const { token } = await ok<{ token: string }>(
    await operator.post("/api/v1/registration-tokens", { data: { name: `for ${name}` }, headers: SAME_ORIGIN }),
  );
  const { body, key } = registrationBody(name, { labels });
  const res = await call(`https://127.0.0.1:${AGENT_PORT}/api/agent/v1/register`, "POST", {
    body,
    headers: { authorization: `Bearer ${token}` },
    rejectUnauthorized: false,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.clusterId as string, client: { cert: res.body.certificate, key } as ClientCert };
}

const heartbeat = (client: ClientCert, over: Record<string, unknown>) =>
  call(`https://127.0.0.1:${AGENT_PORT}/api/agent/v1/heartbeat`, "POST", {
    body: heartbeatBody(over),
    client,
    rejectUnauthorized: false,
  });

test.describe("Settings", () => {
  test.use(asRole("admin"));

  test("an error names the field as the form shows it and sits under that field, from the server too", async ({
    page,
    settingsPage,
  }) => {
    test.slow(); // often the run's first page: the server renders it cold, on a shared machine
    await settingsPage.goto();
    await expect(settingsPage.save).toBeVisible({ timeout: 30_000 });
    await settingsPage.expectLoaded();
    const interval = settingsPage.heartbeatInterval;

    // The form's own check.
    await settingsPage.notReadyThreshold.fill("60");
    await interval.fill("90");
    await settingsPage.save.click();
    await expect(interval).toHaveAttribute("aria-invalid", "true");
    await expect(interval).toHaveAccessibleDescription(
      /Heartbeat interval \(seconds\) must be shorter than the NotReady threshold \(seconds\)/,
    );
    await expect(page.getByText(/heartbeatIntervalSeconds|notReadyThresholdSeconds/)).toHaveCount(0);

    // The server's 400: the form's patch is narrowed on the way to one the server alone can refuse
    // (the interval against the stored threshold), and its answer lands under the same field.
    await interval.fill("5");
    await page.route("**/api/v1/settings", async (route) => {
      if (route.request().method() !== "PATCH") return route.continue();
      const stored = (await (await page.request.get("/api/v1/settings")).json()) as { notReadyThresholdSeconds: number };
      await route.continue({ postData: JSON.stringify({ heartbeatIntervalSeconds: stored.notReadyThresholdSeconds + 1 }) });
    });
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/api/v1/settings") && r.request().method() === "PATCH"),
      settingsPage.save.click(),
    ]);
    expect(answer.status()).toBe(400);
    await expect(interval).toHaveAttribute("aria-invalid", "true");
    await expect(interval).toHaveAccessibleDescription(
      /Heartbeat interval \(seconds\) must be shorter than the NotReady threshold/,
    );
    await expect(settingsPage.error).toHaveCount(0);
    await expect(page.getByText(/heartbeatIntervalSeconds|notReadyThresholdSeconds/)).toHaveCount(0);
  });

  test("adding a required label previews how many clusters lack it before saving", async ({ page, settingsPage, apiAs }) => {
    const key = `e2e-req-${run()}`;
    const admin = await apiAs("admin");
    await ok(
      await admin.post("/api/v1/clusters", {
        data: { name: `e2e-req-${run()}`, labels: { env: "e2e", region: "eu", [key]: "yes" } },
        headers: SAME_ORIGIN,
      }),
    );
    await settingsPage.goto();
    await settingsPage.expectLoaded();
    const current = await settingsPage.requiredLabels.inputValue();
    const preview = page.getByTestId("required-labels-preview");

    // A key one cluster carries: all the others would be blocked.
    await settingsPage.requiredLabels.fill(`${current}, ${key}`);
    await expect(preview).toContainText(`lack “${key}”`);
    const [blocked, total] = ((await preview.innerText()).match(/([\d,]+) clusters? of ([\d,]+)/) ?? [])
      .slice(1)
      .map((n) => Number(n.replace(/,/g, "")));
    expect(total! - blocked!).toBe(1);

    // A key no cluster carries blocks them all; back to the saved keys, nothing is previewed.
    await settingsPage.requiredLabels.fill(`${current}, nobody-has-${key}`);
    await expect(preview).toContainText(/([\d,]+) clusters? of \1 lack/);
    await settingsPage.requiredLabels.fill(current);
    await expect(preview).toHaveText("");
  });
});

test.describe("as an operator", () => {
  test.use(asRole("operator"));

  test("Remove cluster needs the cluster's name typed and a reason", async ({ page, apiAs }, testInfo) => {
    test.slow(); // a registration and four wizard steps through the API before the dialog
    const operator = await apiAs("operator");
    const name = `e2e-remove-${run()}`;
    const { id, client } = await registerCluster(operator, name, { env: "e2e", region: "eu" });
    await heartbeat(client, { workloads: { pods: 0, namespaces: 1 } });
    const wizard = `/api/v1/clusters/${id}/deregistration`;
    const act = (data: Record<string, unknown>) => operator.post(wizard, { data, headers: SAME_ORIGIN });
    await expect.poll(async () => (await ok<{ workloads: { pods: number } }>(await operator.get(wizard))).workloads.pods).toBe(0);
    await ok(await act({ action: "start", reason: "e2e" }));
    await ok(await act({ action: "confirm-workloads" }));
    const { disconnect } = await ok<{ disconnect: { directiveId: string } }>(await act({ action: "disconnect" }));
    await heartbeat(client, { workloads: { pods: 0, namespaces: 1 }, acks: [disconnect.directiveId] });
    await expect
      .poll(async () => (await ok<{ disconnect: { acknowledged: boolean } }>(await operator.get(wizard))).disconnect.acknowledged)
      .toBe(true);

    await page.goto(`/clusters/${id}/deregister`);
    const dialog = page.getByRole("dialog", { name: `Remove ${name} from the fleet?` });
    // A click that lands before the page is hydrated opens nothing: click until the dialog shows.
    await expect(async () => {
      await page.getByRole("button", { name: "Remove cluster…" }).click();
      await expect(dialog).toBeVisible({ timeout: 1_000 });
    }).toPass();
    const typed = dialog.getByLabel(`Type ${name} to confirm`);
    const reason = dialog.getByLabel("Reason");
    await expect(typed).toBeFocused();
    const remove = dialog.getByRole("button", { name: "Remove cluster" });

    await typed.fill(name.slice(0, -1));
    await remove.click();
    await expect(typed).toHaveAttribute("aria-invalid", "true");
    await expect(typed).toHaveAccessibleDescription(/Type the name exactly/);
    await expect(reason).toHaveAttribute("aria-invalid", "true");
    await expect(dialog).toBeVisible();
    await saveScreenshots(page, testInfo, "remove-cluster-dialog");
    // On a 390x844 phone the dialog, its fields and its buttons fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const part of [dialog, typed, reason, remove]) {
      const box = (await part.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }

    await typed.fill(name);
    await reason.fill("e2e: retired");
    await remove.click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByText(/Removed at/)).toBeVisible();
    const audit = await ok<{ items: { action: string; details: { reason?: string } }[] }>(
      await operator.get(`/api/v1/audit?target=${id}&action=cluster.deregister`),
    );
    expect(audit.items[0]?.details.reason).toBe("e2e: retired");
  });

  test("the label selector suggests keys, then values, with counts, by keyboard", async ({ page, apiAs }) => {
    test.slow(); // a registration, then a dozen keystrokes each waiting on the list
    const operator = await apiAs("operator");
    const key = `e2esug${run()}`;
    await registerCluster(operator, `e2e-suggest-${run()}`, { env: "e2e", region: "eu", [key]: "blue" });

    await page.goto("/groups");
    const dialog = page.getByRole("dialog");
    await expect(async () => {
      await page.getByRole("button", { name: "New group" }).click();
      await expect(dialog).toBeVisible({ timeout: 1_000 });
    }).toPass();
    const selector = dialog.getByRole("combobox", { name: "Label selector" });
    await selector.pressSequentially(key.slice(0, 8));
    const keys = dialog.getByRole("listbox", { name: "Label keys" });
    await expect(keys.getByRole("option", { name: new RegExp(`^${key}`) })).toContainText("1 cluster");
    await expect(selector).toHaveAttribute("aria-expanded", "true");

    await selector.press("ArrowDown");
    const active = await selector.getAttribute("aria-activedescendant");
    expect(active).toBeTruthy();
    await expect(page.locator(`[id="${active}"]`)).toHaveAttribute("aria-selected", "true");
    await selector.press("Enter");
    await expect(selector).toHaveValue(key);
    await expect(dialog).toBeVisible(); // Enter picked the suggestion; it did not submit the form

    await selector.press("=");
    const values = dialog.getByRole("listbox", { name: `Values of ${key}` });
    await expect(values.getByRole("option")).toHaveText([/^blue\s*1 cluster$/]);
    await selector.press("ArrowDown");
    await selector.press("Enter");
    await expect(selector).toHaveValue(`${key}=blue`);
    await expect(selector).toHaveAttribute("aria-expanded", "false");
    await expect(dialog.getByTestId("selector-preview-summary")).toHaveText("Matches 1 cluster");

    // Escape closes the list and leaves the dialog open.
    await selector.press("Backspace");
    await expect(values).toBeVisible();
    await selector.press("Escape");
    await expect(values).toBeHidden();
    await expect(dialog).toBeVisible();
  });
});

test.describe("every page", () => {
  test.use(asRole("viewer"));

  test("on a desktop the skip link is the first tab stop and the next one is in the content", async ({ page, shell }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/clusters");
    await expect(page.getByRole("heading", { level: 1, name: "Clusters" })).toBeVisible();
    await shell.skipToContent();
    // One more Tab lands on the page's own first control, not back in the sidebar or the header.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => !!document.activeElement?.closest("main"))).toBe(true);
  });

  test("has a favicon", async ({ page }) => {
    await page.goto("/clusters");
    const href = await page.locator('head link[rel="icon"]').first().getAttribute("href");
    expect(href, "a <link rel=icon> in the head").toBeTruthy();
    const icon = await page.request.get(new URL(href!, page.url()).toString());
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toContain("image/svg+xml");
    expect(await icon.text()).toContain("<svg");
  });
});
