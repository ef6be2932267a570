// Minting a registration token in the console: the token is shown once with the agent command and
// manifest, forgotten when the panel closes, listed as active 0/1, and revoked after confirmation.
// A refused registration then shows up in the attempts log, explained in plain words.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { registerThroughAgentPort } from "../support/agent-api";
import { asRole, BASE_URL, expect, SAME_ORIGIN, test } from "../fixtures";
import { saveScreenshotsOfUrl } from "../support/screenshots";

test.use(asRole("operator"));

/** The Tokens page as a user sees it (kept with its only specs; move to e2e/pages when shared). */
class TokensPage {
  readonly mintButton: Locator;
  readonly form: Locator;
  readonly minted: Locator;
  readonly mintedToken: Locator;
  readonly tokensTable: Locator;
  readonly attempts: Locator;

  constructor(readonly page: Page) {
    this.mintButton = page.getByRole("button", { name: "Mint token", exact: true }).first();
    this.form = page.getByRole("form", { name: "Mint a registration token" });
    this.minted = page.getByRole("region", { name: /minted$/ });
    this.mintedToken = page.getByTestId("minted-token");
    this.tokensTable = page.getByRole("table", { name: /Registration tokens/ });
    this.attempts = page.getByRole("table", { name: /Registration attempts/ });
  }

  async goto() {
    await this.page.goto("/tokens");
    await expect(this.page.getByRole("heading", { name: "Registration tokens" })).toBeVisible();
  }

  tokenRow(name: string): Locator {
    return this.tokensTable.getByRole("row").filter({ hasText: name });
  }

  field(label: string): Locator {
    return this.form.getByLabel(label, { exact: true });
  }
}

function uniqueName(prefix: string) {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(2).toString("hex")}`;
}

test("mint a token in the UI: shown once with command and manifest, then listed active 0/1 and revoked", async ({
  page,
  context,
}, testInfo) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE_URL });
  const tokens = new TokensPage(page);
  const name = uniqueName("e2e-mint");
  await tokens.goto();

  await tokens.mintButton.click();
  await expect(tokens.field("Name")).toBeFocused();
  await tokens.field("Name").fill(name);
  await tokens.field("Description (optional)").fill("minted by the e2e suite");
  await tokens.form.getByText("24 h", { exact: true }).click();
  await expect(tokens.form.getByRole("radio", { name: "24 h" })).toBeChecked();
  await expect(tokens.field("Max clusters")).toHaveValue("1");
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/api/v1/registration-tokens") && r.request().method() === "POST"),
    tokens.form.getByRole("button", { name: "Mint token" }).click(),
  ]);
  expect(response.status()).toBe(201);

  // Shown once, clearly marked, with a working copy button.
  await expect(tokens.minted).toBeVisible();
  await expect(tokens.minted).toContainText("you won’t see it again");
  const token = (await tokens.mintedToken.innerText()).trim();
  expect(token).toMatch(/^frt_[a-z0-9]+_[A-Za-z0-9_-]{20,}$/);
  // Its name turns to "Copied" once clicked, so match both.
  const copy = tokens.minted.getByRole("button", { name: /^(Copy token|Copied)$/ });
  await expect(copy).toBeVisible();
  await copy.click();
  await expect(copy).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

  // The agent command and the manifest, built from the fleet's facts.
  const fleet = (await (await page.request.get("/api/v1/fleet")).json()) as { agentUrl: string; caFingerprint: string };
  const command = page.getByRole("region", { name: "Agent command" }).locator("pre");
  await expect(command).toContainText(`npm run agent -- --server ${fleet.agentUrl} --token-file token.txt --name ${name}`);
  await expect(command).toContainText(`--state-dir ./agent-state --ca-fingerprint ${fleet.caFingerprint}`);
  await expect(command).not.toContainText(token);
  await tokens.minted.getByLabel("Label region").fill("eu-west-1");
  await tokens.minted.getByLabel("Label env").fill("prod");
  await expect(command).toContainText("--labels env=prod,region=eu-west-1");
  const manifest = page.getByRole("region", { name: "Kubernetes manifest" }).locator("pre");
  await expect(manifest).toContainText("kind: Namespace");
  await expect(manifest).toContainText("name: fleet-system");
  await expect(manifest).toContainText("kind: Deployment");
  await expect(manifest).toContainText(`token: ${token}`);
  await expect(manifest).toContainText("kubernetes.io/os: linux");

  // The manifest is handed out once its server address is one a pod can reach (not loopback).
  await tokens.minted.getByLabel("Server address").fill("https://fleet.e2e.example:8443");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    tokens.minted.getByRole("button", { name: `Download fleet-agent-${name}.yaml` }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`fleet-agent-${name}.yaml`);

  const panelShot = testInfo.outputPath("tokens-minted-panel.png");
  await tokens.minted.screenshot({ path: panelShot });
  await testInfo.attach("tokens-minted-panel", { path: panelShot, contentType: "image/png" });

  // Closing forgets it: nowhere in the DOM, and the list shows it active with 0 of 1 uses.
  await tokens.minted.getByRole("button", { name: "I’ve saved the token — close" }).click();
  await expect(tokens.minted).toHaveCount(0);
  expect(await page.content()).not.toContain(token);
  await expect(tokens.mintButton).toBeFocused();
  const row = tokens.tokenRow(name);
  await expect(row).toContainText("active");
  await expect(row.getByLabel("0 of 1 clusters registered")).toHaveText("0 / 1");
  await expect(row).toContainText(/in (23 h 59 min|24 h 0 min)/);

  // Revoke, behind a confirmation that Escape dismisses.
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  const dialog = page.getByRole("dialog", { name: `Revoke “${name}”?` });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(row).toContainText("active");
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(row).toContainText("revoked");
  await expect(row.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
  expect(await page.content()).not.toContain(token);
});

test("the agent command shown after minting, run as printed, registers the cluster: the list shows 1/1 without a reload", async ({
  page,
}, testInfo) => {
  test.setTimeout(60_000);
  const tokens = new TokensPage(page);
  const name = uniqueName("e2e-run");
  await tokens.goto();
  await tokens.mintButton.click();
  await tokens.field("Name").fill(name);
  await tokens.form.getByRole("button", { name: "Mint token" }).click();
  const token = (await tokens.mintedToken.innerText()).trim();
  await tokens.minted.getByLabel("Label env").fill("e2e");
  await tokens.minted.getByLabel("Label region").fill("local");
  const command = (await page.getByRole("region", { name: "Agent command" }).locator("pre").innerText()).trim();
  await tokens.minted.getByRole("button", { name: "I’ve saved the token — close" }).click();

  // Exactly the printed flags; only token.txt and the state dir move into a temp dir.
  const prefix = "npm run agent -- ";
  expect(command.startsWith(prefix)).toBe(true);
  const dir = mkdtempSync(path.join(tmpdir(), "e2e-token-agent-"));
  writeFileSync(path.join(dir, "token.txt"), `${token}\n`, { mode: 0o600 });
  const args = command
    .slice(prefix.length)
    .split(/\s+/)
    .map((arg) =>
      arg === "token.txt" ? path.join(dir, "token.txt") : arg === "./agent-state" ? path.join(dir, "agent-state") : arg,
    );
  expect(args).toContain(path.join(dir, "token.txt"));
  // The laptop path reads the cluster through the user's kubeconfig; this machine has no cluster,
  // so that one flag pair becomes --facts simulated (everything else runs as printed).
  const kubeconfig = args.indexOf("--kubeconfig");
  expect(args[kubeconfig + 1]).toBe("~/.kube/config");
  args.splice(kubeconfig, 2, "--facts", "simulated");
  const agent = spawn(process.execPath, ["--import", "tsx", "lib/agent/cli.ts", ...args, "--log-level", "warn"], {
    cwd: path.dirname(testInfo.config.configFile ?? path.join(process.cwd(), "playwright.config.ts")),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  agent.stdout?.on("data", (c) => (output += c));
  agent.stderr?.on("data", (c) => (output += c));
  try {
    const row = tokens.tokenRow(name);
    await expect(row.getByLabel("1 of 1 clusters registered"), output).toHaveText("1 / 1", { timeout: 30_000 });
    await expect(row).toContainText("exhausted");
    const attempt = tokens.attempts.locator("tbody").filter({ hasText: name });
    await expect(attempt.first()).toContainText("registered", { timeout: 15_000 });
  } finally {
    agent.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the manifest's advanced options: a bad value is an inline error and stays out; fixed, it is in the manifest", async ({
  page,
}) => {
  const tokens = new TokensPage(page);
  await tokens.goto();
  await tokens.mintButton.click();
  await tokens.field("Name").fill(uniqueName("e2e-advanced"));
  await tokens.form.getByRole("button", { name: "Mint token" }).click();
  await expect(tokens.minted).toBeVisible();
  const command = page.getByRole("region", { name: "Agent command" }).locator("pre");
  const manifest = page.getByRole("region", { name: "Kubernetes manifest" }).locator("pre");
  await expect(manifest).toContainText("kubernetes.io/os: linux");

  await tokens.minted.getByText("Advanced options").click();
  const tolerations = tokens.minted.getByLabel("Tolerations");
  await tolerations.fill("dedicated=platform:NoSchedul");
  await expect(tolerations).toHaveAttribute("aria-invalid", "true");
  await expect(tolerations).toHaveAccessibleDescription(/effect must be NoSchedule, PreferNoSchedule, NoExecute/);
  await expect(manifest).not.toContainText("tolerations:");
  await tolerations.fill("dedicated=platform:NoSchedule");
  await expect(tolerations).not.toHaveAttribute("aria-invalid", "true");
  await expect(manifest).toContainText("tolerations:");
  await expect(manifest).toContainText("value: platform");
  await tokens.minted.getByLabel("Priority class").fill("system-cluster-critical");
  await tokens.minted.getByLabel("Image pull secrets").fill("regcred");
  await tokens.minted.getByLabel("API server URL").fill("https://4A1B2C3D.gr7.eu-west-1.eks.amazonaws.com");
  await expect(manifest).toContainText("priorityClassName: system-cluster-critical");
  await expect(manifest).toContainText("- name: regcred");
  await expect(manifest).toContainText("- https://4A1B2C3D.gr7.eu-west-1.eks.amazonaws.com");
  await expect(command).toContainText("--api-server-url https://4A1B2C3D.gr7.eu-west-1.eks.amazonaws.com");
});

test("mistakes are caught inline and nothing is minted", async ({ page }) => {
  const tokens = new TokensPage(page);
  await tokens.goto();
  let posted = false;
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/api/v1/registration-tokens")) posted = true;
  });
  await tokens.mintButton.click();
  await tokens.form.getByRole("radio", { name: "Only these labels" }).check();
  await tokens.field("Allowed label key 1").fill("Bad Key!");
  await tokens.form.getByText("Custom", { exact: true }).click();
  await tokens.field("Custom lifetime").fill("45");
  await tokens.field("Unit").selectOption("days");
  await tokens.form.getByRole("button", { name: "Mint token" }).click();

  await expect(tokens.field("Name")).toHaveAttribute("aria-invalid", "true");
  await expect(tokens.field("Allowed label key 1")).toHaveAttribute("aria-invalid", "true");
  await expect(tokens.form).toContainText("Key name must start and end with a letter or digit");
  await expect(tokens.form).toContainText("Add at least one value, or allow any value.");
  await expect(tokens.form).toContainText("Between 1 minute and 30 days.");
  await expect(tokens.minted).toHaveCount(0);
  expect(posted).toBe(false);

  await tokens.form.getByRole("button", { name: "Cancel" }).click();
  await expect(tokens.form).toHaveCount(0);
});

test("the attempts log shows a refused registration with its plain-words explanation", async ({
  page,
  apiAs,
  playwright,
}, testInfo) => {
  const operator = await apiAs("operator");
  const name = uniqueName("e2e-revoked");
  const minted = await operator.post("/api/v1/registration-tokens", { data: { name, ttlSeconds: 3600 }, headers: SAME_ORIGIN });
  expect(minted.status()).toBe(201);
  const { id, token } = (await minted.json()) as { id: string; token: string };
  expect((await operator.delete(`/api/v1/registration-tokens/${id}`, { headers: SAME_ORIGIN })).status()).toBe(200);

  const cluster = uniqueName("late-agent");
  const refused = await registerThroughAgentPort(playwright, token, cluster, { env: "dev", region: "eu-west-1" });
  expect(refused.status).toBe(401);
  expect(refused.body.error).toBe("token_revoked");

  const tokens = new TokensPage(page);
  await tokens.goto();
  const filters = page.getByRole("search", { name: "Filter registration attempts" });
  await filters.getByLabel("Result").selectOption("token_revoked");
  await filters.getByLabel("Token").selectOption({ label: name });
  const attempt = tokens.attempts.locator("tbody").filter({ hasText: cluster });
  await expect(attempt).toHaveCount(1);
  await expect(attempt).toContainText("token_revoked");
  await expect(attempt.getByRole("row").first()).toContainText(name);
  await expect(attempt).toContainText("Token problem");
  await expect(attempt).toContainText("Someone revoked this token, so it can no longer register clusters.");
  await expect(attempt).toContainText("What to do: Mint a new token if this cluster should join");
  await expect(attempt).toContainText("127.0.0.1");

  await saveScreenshotsOfUrl(page, testInfo, "/tokens", "tokens", async () => {
    await expect(page.getByRole("table", { name: /Registration tokens/ })).toBeVisible();
    await expect(page.getByRole("table", { name: /Registration attempts/ })).toBeVisible();
  });
});
