// A human gate for new clusters: a token minted in the console with "Require approval", a real
// agent that waits and says so, the approval queue with the request's facts and a live badge;
// approve -> the cluster turns Ready; deny (on a phone) -> the agent logs the reason and stops.
import { randomUUID } from "node:crypto";
import type { APIRequestContext, Page, TestInfo } from "@playwright/test";
import { AgentProcess, okJson, uniqueName } from "../support/agent-process";
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { saveScreenshots } from "../support/screenshots";

test.use(asRole("operator"));

const WAITING = "waiting for an operator to approve registration request";

/** Light and dark screenshots at the page's current (phone) size, attached to the test. */
async function phoneScreenshots(page: Page, testInfo: TestInfo, name: string) {
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
    const file = testInfo.outputPath(`${name}-${theme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach(`${name}-${theme}`, { path: file, contentType: "image/png" });
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
}

/** A single-use token that requires approval, minted through the API. */
async function mintApprovalToken(request: APIRequestContext, name: string) {
  return okJson<{ token: string }>(
    await request.post("/api/v1/registration-tokens", {
      data: { name: `e2e ${name}`, ttlSeconds: 3600, maxClusters: 1, requireApproval: true },
      headers: SAME_ORIGIN,
    }),
  );
}

test("a token that requires approval: the agent waits, the queue shows its facts, approve turns it Ready", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  const name = uniqueName("e2e-approve");

  // Mint through the console, with the approval option.
  await page.goto("/tokens");
  await page.getByRole("button", { name: "Mint token", exact: true }).first().click();
  const form = page.getByRole("form", { name: "Mint a registration token" });
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByRole("checkbox", { name: /Require approval/ }).check();
  await form.getByRole("button", { name: "Mint token" }).click();
  const token = (await page.getByTestId("minted-token").innerText()).trim();
  await page.getByRole("button", { name: "I’ve saved the token — close" }).click();
  await expect(
    page
      .getByRole("table", { name: /Registration tokens/ })
      .getByRole("row")
      .filter({ hasText: name }),
  ).toContainText("approval");

  const agent = await AgentProcess.start(request, testInfo, name, {
    labels: "env=e2e,region=approval",
    logLevel: "info",
    token,
  });
  try {
    await expect.poll(() => agent.log, { message: "the agent says it is waiting", timeout: 30_000 }).toContain(WAITING);
    // Not in the fleet while it waits.
    const waiting = await okJson<{ items: { name: string }[] }>(await request.get(`/api/v1/clusters?q=${name}`));
    expect(waiting.items.map((c) => c.name)).not.toContain(name);

    // The badge counts it without a reload, and leads to the queue.
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: /^Approvals \d+ waiting$/ })).toBeVisible({ timeout: 20_000 });
    await nav.getByRole("link", { name: /^Approvals/ }).click();
    await expect(page.getByRole("heading", { name: "Registration approvals" })).toBeVisible();

    const card = page.getByRole("article", { name });
    await expect(card).toContainText("Waiting for approval");
    await expect(card).toContainText(`e2e-approve`); // the token's name carries the cluster's
    await expect(card).toContainText("127.0.0.1");
    await expect(card).toContainText(/sha256:[0-9a-f]{64}/);
    await expect(card).toContainText("https://");
    await expect(card).toContainText(/agent \d+\.\d+\.\d+/);
    await expect(card.getByRole("list", { name: "Labels" })).toContainText("region=approval");
    await saveScreenshots(page, testInfo, "approval-queue");
    // The README's screenshots: the queue with this request, light and dark, at the viewport.
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
      await page.screenshot({ path: `docs/screenshots/approvals-${theme}.png` });
    }
    await page.evaluate(() => document.documentElement.classList.remove("dark"));

    await card.getByRole("button", { name: `Approve ${name}` }).click();
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toContainText(`Approved ${name}`);
    await agent.clusterId(request);
    await page.goto(`/clusters?q=${name}`);
    const row = page.getByRole("row").filter({ hasText: name });
    await expect(row.getByText("Ready", { exact: true })).toBeVisible({ timeout: 30_000 });

    // Decided, with who approved it.
    await page.goto("/registration-requests");
    await page.getByRole("tab", { name: "Decided" }).click();
    await expect(page.getByRole("article", { name })).toContainText(/Registered|Approved, agent collecting/);
    await expect(page.getByRole("article", { name })).toContainText("by ");
  } finally {
    await agent.stop();
  }
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test("deny with a reason: the agent logs it and stops asking", async ({ page, request }, testInfo) => {
    test.setTimeout(120_000);
    const name = uniqueName("e2e-deny");
    const minted = await mintApprovalToken(request, name);
    const agent = await AgentProcess.start(request, testInfo, name, {
      labels: "env=e2e,region=approval",
      logLevel: "info",
      token: minted.token,
    });
    try {
      await expect.poll(() => agent.log, { timeout: 30_000 }).toContain(WAITING);
      await page.goto("/registration-requests");
      const card = page.getByRole("article", { name });
      await expect(card).toContainText("Waiting for approval");
      await phoneScreenshots(page, testInfo, "approval-queue-phone");

      await card.getByRole("button", { name: `Deny ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: `Deny ${name}?` });
      // A denial needs a reason: the agent is told it.
      await dialog.getByRole("button", { name: "Deny" }).click();
      await expect(dialog.getByText("Say why")).toBeVisible();
      await dialog.getByLabel("Reason (the agent is told)").fill("not one of our clusters");
      await dialog.getByRole("button", { name: "Deny" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Denied" })).toContainText(`Denied ${name}`);
      await expect(card).toHaveCount(0);

      await expect
        .poll(() => agent.log, { message: "the agent logs the reason", timeout: 45_000 })
        .toContain("not one of our clusters");
      const code = await Promise.race([agent.exit, new Promise((r) => setTimeout(() => r("still running"), 15_000))]);
      expect(code, "the agent stops asking").not.toBe("still running");
      const gone = await okJson<{ items: { name: string }[] }>(await request.get(`/api/v1/clusters?q=${name}`));
      expect(gone.items.map((c) => c.name)).not.toContain(name);
    } finally {
      await agent.stop();
    }
  });
});

test("two agents reporting one kube-system UID are both flagged, never refused", async ({ page, request }, testInfo) => {
  test.setTimeout(90_000);
  const run = uniqueName("e2e-twin");
  const uid = randomUUID();
  const names = [`${run}-a`, `${run}-b`];
  const agents = await Promise.all(
    names.map((name) =>
      AgentProcess.start(request, testInfo, name, { labels: "env=e2e,region=twins", args: ["--cluster-uid", uid] }),
    ),
  );
  try {
    const [idA] = await Promise.all(agents.map((a) => a.clusterId(request)));
    // The list's reason column names the other one, and the filter finds exactly these two.
    await page.goto(`/clusters?duplicateUid=true&q=${run}`);
    for (const [name, other] of [names, [...names].reverse()] as [string, string][]) {
      const row = page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
      await expect(row).toContainText(`Same cluster as ${other}`, { timeout: 20_000 });
    }
    await expect(page.getByRole("row").filter({ hasText: run })).toHaveCount(2);
    await saveScreenshots(page, testInfo, "same-cluster-list");

    // The cluster page shows the UID and links the twin.
    await page.goto(`/clusters/${idA}`);
    await expect(page.getByText(uid)).toBeVisible();
    await expect(page.getByRole("link", { name: names[1] })).toBeVisible();
  } finally {
    await Promise.all(agents.map((a) => a.stop()));
  }
});

test("two keys ask for one name: both wait side by side with their fingerprints; approving the installer's denies the other", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  const name = uniqueName("e2e-rival");
  // One single-use token, as leaked to a squatter: both keys still get their request.
  const minted = await mintApprovalToken(request, name);
  const options = { labels: "env=e2e,region=approval", logLevel: "info" as const, token: minted.token };
  const [ours, theirs] = [
    await AgentProcess.start(request, testInfo, name, options),
    await AgentProcess.start(request, testInfo, name, options),
  ];
  try {
    const fingerprint = async (agent: AgentProcess) => {
      await expect.poll(() => agent.log, { timeout: 30_000 }).toMatch(/this agent's key is sha256:[0-9a-f]{64}/);
      return /this agent's key is (sha256:[0-9a-f]{64})/.exec(agent.log)![1]!;
    };
    const [ourKey, theirKey] = [await fingerprint(ours), await fingerprint(theirs)];
    expect(ourKey).not.toBe(theirKey);

    await page.goto("/registration-requests");
    const ourCard = page.getByRole("article", { name }).filter({ hasText: ourKey });
    const theirCard = page.getByRole("article", { name }).filter({ hasText: theirKey });
    await expect(ourCard).toContainText("2 requests for this name");
    await expect(theirCard).toContainText("2 requests for this name");
    await ourCard.getByRole("button", { name: "Show them together" }).click();
    await expect(page.getByRole("searchbox", { name: "Search requests" })).toHaveValue(name);
    await expect(page.getByRole("article", { name })).toHaveCount(2);
    await saveScreenshots(page, testInfo, "approval-two-keys");

    // At scale, the same queue as a table, narrowed by labels.
    await page.getByRole("button", { name: "Table" }).click();
    const rows = page.getByRole("table", { name: "Registration requests" }).getByRole("row").filter({ hasText: name });
    await expect(rows).toHaveCount(2);
    const labels = page.getByRole("textbox", { name: "Labels" });
    await labels.fill("region=elsewhere");
    await expect(page.getByText("No request matches")).toBeVisible();
    await labels.fill("region=approval");
    await expect(rows).toHaveCount(2);
    await saveScreenshots(page, testInfo, "approval-table");
    await page.getByRole("button", { name: "Cards" }).click();

    await ourCard.getByRole("button", { name: `Approve ${name}` }).click();
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toContainText(
      "The other request for this name was denied.",
    );
    await expect.poll(() => theirs.log, { timeout: 45_000 }).toContain("another request for this name was approved");
    await ours.clusterId(request);
  } finally {
    await Promise.all([ours.stop(), theirs.stop()]);
  }
});
