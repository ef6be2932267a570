// Programmatic sign-in through next-auth's credentials endpoints (what the login form does, minus
// the browser), and the same-origin header the admin API demands of session mutations.
import { expect, type APIRequestContext } from "@playwright/test";
import { BASE_URL, type Account } from "./run";

export const SESSION_COOKIE = "next-auth.session-token";

/** Headers a browser on the console's own page would send with a mutation. */
export const SAME_ORIGIN = { Origin: BASE_URL } as const;

/** Signs `request` in (it keeps the session cookie). */
export async function signIn(request: APIRequestContext, account: Pick<Account, "email" | "password">): Promise<void> {
  const csrf = await request.get("/api/auth/csrf");
  expect(csrf.ok(), `GET /api/auth/csrf: ${csrf.status()}`).toBeTruthy();
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email: account.email, password: account.password, json: "true" },
    headers: SAME_ORIGIN,
    maxRedirects: 0,
  });
  expect(res.status(), `sign-in of ${account.email}: ${res.status()} ${await res.text()}`).toBeLessThan(400);
  const cookies = (await request.storageState()).cookies;
  expect(
    cookies.some((c) => c.name === SESSION_COOKIE),
    `sign-in of ${account.email} set no session cookie (wrong password?)`,
  ).toBeTruthy();
}
