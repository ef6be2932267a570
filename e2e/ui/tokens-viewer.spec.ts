// A viewer sees the registration tokens and the attempts log but none of the controls that change
// them; and the API refuses the viewer regardless of what the page shows.
import { randomBytes } from "node:crypto";
import { asRole, expect, expectApiError, SAME_ORIGIN, test } from "../fixtures";

test.use(asRole("viewer"));

test("a viewer sees the token list without mint or revoke controls, and minting through the API is forbidden", async ({
  page,
  apiAs,
}) => {
  const name = `e2e-viewer-sees-${randomBytes(3).toString("hex")}`;
  const admin = await apiAs("admin");
  expect((await admin.post("/api/v1/registration-tokens", { data: { name }, headers: SAME_ORIGIN })).status()).toBe(201);

  await page.goto("/tokens");
  const table = page.getByRole("table", { name: /Registration tokens/ });
  const row = table.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("active");
  await expect(page.getByText("You can see tokens; minting and revoking them needs the operator role.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Mint token" })).toHaveCount(0);
  await expect(table.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
  await expect(
    page.getByRole("table", { name: /Registration attempts/ }).or(page.getByText("No registration attempts yet")),
  ).toBeVisible();

  // The way a script (or the browser's console) would try it: same-origin, with the viewer's cookie.
  const viewer = await apiAs("viewer");
  await expectApiError(
    await viewer.post("/api/v1/registration-tokens", { data: { name: "viewer-mint", ttlSeconds: 3600 }, headers: SAME_ORIGIN }),
    403,
    "forbidden",
  );
  const fromPage = await page.evaluate(async () => {
    const res = await fetch("/api/v1/registration-tokens", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "viewer-mint-from-page" }),
    });
    return { status: res.status, body: (await res.json()) as { error: string } };
  });
  expect(fromPage).toEqual({ status: 403, body: expect.objectContaining({ error: "forbidden" }) });
  const list = (await (await viewer.get("/api/v1/registration-tokens")).json()) as { items: { name: string }[] };
  expect(list.items.map((t) => t.name)).not.toContain("viewer-mint");
  expect(list.items.map((t) => t.name)).not.toContain("viewer-mint-from-page");
});
