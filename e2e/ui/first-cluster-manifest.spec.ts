// The first cluster's manifest never downloads in a state that fails: after minting, Copy and
// Download stay disabled with the reason beside them until the cluster name is valid (empty and
// required when the token may register more than one cluster), the required labels are filled and
// the server address is one a pod can reach (not loopback); the address is editable and starts at
// the first non-loopback AGENT_HOSTNAMES entry; node actions, the proxy and the API server URL are
// options on the page; and the page says what enrollment needs. At 1440 px and on a phone.
import { randomBytes } from "node:crypto";
import type { Locator, Page } from "@playwright/test";
import { asRole, expect, test } from "../fixtures";
import { seriousAxeFindings } from "../support/axe";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";

test.use(asRole("operator"));

const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${randomBytes(2).toString("hex")}`;
const isLoopback = (url: string) => /^https:\/\/(localhost|127\.[0-9.]+|\[::1\])(:|\/|$)/.test(url);

async function mint(page: Page, name: string, maxClusters: number): Promise<Locator> {
  await page.goto("/tokens");
  await page.getByRole("button", { name: "Mint token", exact: true }).first().click();
  const form = page.getByRole("form", { name: "Mint a registration token" });
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("Max clusters", { exact: true }).fill(String(maxClusters));
  await form.getByRole("button", { name: "Mint token" }).click();
  const minted = page.getByRole("region", { name: /minted$/ });
  await expect(minted).toBeVisible();
  return minted;
}

for (const viewport of [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`${viewport.name}: Copy and Download wait, with the reason, for a name, the labels and a reachable server address`, async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const fleet = (await (await page.request.get("/api/v1/fleet")).json()) as {
      agentUrl: string;
      agentUrls: string[];
      requiredLabels: string[];
    };
    const minted = await mint(page, uniqueName("e2e-first"), 3);
    const manifest = minted.getByRole("region", { name: "Kubernetes manifest" });
    const copy = manifest.getByRole("button", { name: "Copy manifest" });
    const download = manifest.getByRole("button", { name: /^Download fleet-agent-/ });
    const reason = minted.getByTestId("agent-manifest-blocked");

    // A token for three clusters suggests no name: empty, required, and the reason says so.
    const name = minted.getByLabel("Cluster name");
    await expect(name).toHaveValue("");
    await expect(name).toHaveAttribute("required", "");
    await expect(name).toHaveAccessibleDescription(/the token may register up to 3 clusters/);
    await expect(copy).toBeDisabled();
    await expect(download).toBeDisabled();
    await expect(reason).toContainText("a valid cluster name");
    await expect(copy).toHaveAccessibleDescription(/Needs a valid cluster name/);
    for (const key of fleet.requiredLabels) await expect(reason).toContainText(key);
    // The text itself is a dimmed preview that says why it cannot be used yet.
    const preview = manifest.locator("pre");
    await expect(preview).toHaveAttribute("data-blocked", "");
    await expect(preview).toHaveAccessibleDescription(/^Preview only, not ready to use: Needs a valid cluster name/);

    // The server address: editable, starting at the first AGENT_HOSTNAMES entry a pod can reach.
    const server = minted.getByLabel("Server address");
    const reachable = fleet.agentUrls.find((u) => !isLoopback(u));
    await expect(server).toHaveValue(reachable ?? fleet.agentUrl);

    // Node actions, the proxy and the API server URL are on the page, not hidden.
    for (const label of ["Allow node actions", "HTTPS proxy", "No proxy for", "Proxy CA bundle", "API server URL"])
      await expect(minted.getByLabel(label, { exact: true })).toBeVisible();
    await expect(minted.getByTestId("enrollment-needs")).toContainText("A group whose selector matches its labels");
    await expect(minted.getByTestId("enrollment-needs")).toContainText("optional until the fleet has a group");

    if (viewport.name === "desktop") await saveScreenshots(page, testInfo, "first-cluster-manifest-blocked");
    else {
      // The phone: nothing runs off the screen, and the reason is readable beside the buttons.
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await reason.scrollIntoViewIfNeeded();
      await expect(reason).toBeInViewport();
      await savePhoneScreenshots(page, testInfo, "first-cluster-manifest-blocked-phone");
    }

    // Name and labels: what remains is the server address, if it is loopback.
    const clusterName = uniqueName("first").slice(0, 40);
    await name.fill(clusterName);
    for (const key of fleet.requiredLabels) {
      const field = minted.getByLabel(`Label ${key}`, { exact: true });
      if ((await field.evaluate((el) => el.tagName)) === "INPUT") await field.fill("e2e");
    }
    await expect(reason).not.toContainText("a valid cluster name");
    await server.fill("https://127.0.0.1:8443");
    await expect(server).toHaveAccessibleDescription(/loopback: inside a pod it is the pod itself/);
    await expect(reason).toHaveText("Preview only, not ready to use: Needs a server address a pod can reach.");
    await expect(copy).toBeDisabled();
    await expect(download).toBeDisabled();
    // The command runs on a host, where loopback is fine: it is not held back for the address.
    await expect(minted.getByTestId("agent-command-blocked")).toHaveCount(0);
    await expect(
      minted.getByRole("region", { name: "Agent command" }).getByRole("button", { name: "Copy agent command" }),
    ).toBeEnabled();

    // A reachable address, node actions and a proxy: enabled, and all of it in the manifest.
    await server.fill("https://fleet.e2e.example:8443");
    await minted.getByLabel("Allow node actions").check();
    await minted.getByLabel("HTTPS proxy").fill("http://proxy.e2e.example:3128");
    await minted.getByLabel("No proxy for").fill("10.0.0.0/8, .svc");
    await expect(reason).toHaveCount(0);
    await expect(copy).toBeEnabled();
    await expect(download).toBeEnabled();
    await expect(manifest.locator("pre")).not.toHaveAttribute("data-blocked");
    const text = manifest.locator("pre");
    await expect(text).toContainText("https://fleet.e2e.example:8443");
    await expect(text).toContainText("--allow-node-actions");
    await expect(text).toContainText("HTTPS_PROXY");
    await expect(text).toContainText("http://proxy.e2e.example:3128");
    await expect(text).toContainText("10.0.0.0/8,.svc");
    const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
    expect(file.suggestedFilename()).toBe(`fleet-agent-${clusterName}.yaml`);

    // A bad proxy holds it back again, naming the field.
    await minted.getByLabel("HTTPS proxy").fill("socks5://proxy:1080");
    await expect(reason).toHaveText("Preview only, not ready to use: Needs a valid HTTPS proxy.");
    await expect(download).toBeDisabled();
    await minted.getByLabel("HTTPS proxy").fill("");
    await expect(download).toBeEnabled();

    // An https:// proxy's CA: a PEM bundle or nothing; metrics and JSON logs when ticked.
    await minted.getByLabel("HTTPS proxy").fill("https://proxy.e2e.example:3129");
    await minted.getByLabel("Proxy CA bundle").fill("not a certificate");
    await expect(reason).toHaveText("Preview only, not ready to use: Needs a valid proxy CA bundle.");
    await expect(download).toBeDisabled();
    await minted.getByLabel("Proxy CA bundle").fill("-----BEGIN CERTIFICATE-----\nMIIBe2e\n-----END CERTIFICATE-----");
    await minted.getByLabel("Expose Prometheus metrics").check();
    await minted.getByLabel("JSON logs").check();
    await expect(download).toBeEnabled();
    await expect(text).toContainText("--proxy-ca-file");
    await expect(text).toContainText("fleet-agent-proxy-ca");
    await expect(text).toContainText("--metrics");
    await expect(text).toContainText("fleet-agent-metrics");
    await expect(text).toContainText("--log-format");

    if (viewport.name === "desktop") await saveScreenshots(page, testInfo, "first-cluster-manifest-ready");
    else {
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await savePhoneScreenshots(page, testInfo, "first-cluster-manifest-ready-phone");
    }
  });
}

test("a token for one cluster suggests its name; the manifest then waits only for what is missing; the panel passes axe", async ({
  page,
}) => {
  const tokenName = uniqueName("e2e-single");
  const minted = await mint(page, tokenName, 1);
  await expect(minted.getByLabel("Cluster name")).toHaveValue(tokenName);
  const reason = minted.getByTestId("agent-manifest-blocked");
  await expect(reason).not.toContainText("cluster name");
  await minted.getByLabel("Cluster name").fill("");
  await expect(reason).toContainText("a valid cluster name");
  await expect(minted.getByLabel("Cluster name")).toHaveAccessibleDescription("Name the cluster.");

  // The panel with its errors, reasons and disabled buttons: no serious or critical axe finding.
  expect(await seriousAxeFindings(page, { include: "section[aria-labelledby='minted-token-title']" })).toEqual([]);
});
