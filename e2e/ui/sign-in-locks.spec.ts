// Too many wrong passwords from one address lock that address out of the account (the API side:
// tests/system/sign-in-throttle.test.ts); Settings shows where a user is locked from and an admin
// clears it from their row.
import { signIn as signInFrom } from "../../tests/helpers/console-session";
import { BASE_URL, SAME_ORIGIN, asRole, expect, test } from "../fixtures";

test.use(asRole("admin"));

test("a user locked out from an address shows it on their row, and an admin clears it", async ({ page, apiAs }) => {
  test.slow(); // several sign-ins and the settings page, on a shared machine
  const suffix = Date.now().toString(36);
  const user = { email: `e2e-locked-${suffix}@fleet.test`, password: "e2e-locked-password-1" };
  const admin = await apiAs("admin");
  expect((await admin.post("/api/v1/users", { data: { ...user, role: "viewer" }, headers: SAME_ORIGIN })).status()).toBe(201);
  // Another machine guessing: a loopback address of its own.
  const from = { localAddress: "127.0.0.99" };
  for (let i = 0; i < 5; i++) {
    expect((await signInFrom(BASE_URL, { ...user, password: "a-wrong-guess" }, from)).status).toBe(401);
  }
  expect((await signInFrom(BASE_URL, user, from)).status, "locked from there, even the right password").toBe(429);

  await page.goto("/settings");
  const row = page.locator(`tr[data-user="${user.email}"]`);
  // The lists load after the page; on a busy shared machine that took over 10 s.
  await expect(row).toContainText("locked from 1 address", { timeout: 30_000 });
  await row.getByRole("button", { name: `Clear sign-in locks of ${user.email}` }).click();
  await expect(row).not.toContainText("locked from");
  await expect(row.getByRole("button", { name: `Clear sign-in locks of ${user.email}` })).toHaveCount(0);

  expect((await signInFrom(BASE_URL, user, from)).status, "cleared: the address signs in again").toBe(200);
  const audit = await admin.get(`/api/v1/audit?action=auth.signin_unlocked`);
  expect(JSON.stringify(await audit.json())).toContain(user.email);
});
