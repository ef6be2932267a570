// Who is calling: no credentials, garbage credentials and replayed session tokens are refused
// with 401 `unauthenticated`; pages send the anonymous to the sign-in page.
import { expectApiError, sessionCookieHeader, sessionToken, test, expect, SAME_ORIGIN } from "../fixtures";

const ADMIN_ENDPOINTS = [
  { method: "GET", path: "/api/v1/settings" },
  { method: "PATCH", path: "/api/v1/settings", data: { notReadyThresholdSeconds: 120 } },
  { method: "GET", path: "/api/v1/audit" },
  { method: "GET", path: "/api/v1/audit?action=settings.update&limit=5" },
  { method: "GET", path: "/api/v1/users" },
  { method: "POST", path: "/api/v1/users", data: { email: "intruder@evil.example", password: "x".repeat(16), role: "admin" } },
] as const;

test.describe("without a session", () => {
  for (const ep of ADMIN_ENDPOINTS) {
    test(`${ep.method} ${ep.path} -> 401 unauthenticated`, async ({ apiAs }) => {
      const anon = await apiAs("anonymous");
      const res = await anon.fetch(ep.path, {
        method: ep.method,
        data: "data" in ep ? ep.data : undefined,
        headers: SAME_ORIGIN,
      });
      await expectApiError(res, 401, "unauthenticated");
    });
  }

  for (const path of ["/", "/settings", "/audit"]) {
    test(`page ${path} redirects to /login`, async ({ apiAs }) => {
      const anon = await apiAs("anonymous");
      const res = await anon.get(path, { maxRedirects: 0 });
      expect(res.status(), `${path}: ${res.status()}`).toBeGreaterThanOrEqual(300);
      expect(res.status()).toBeLessThan(400);
      expect(new URL(res.headers()["location"] ?? "", "http://x").pathname).toBe("/login");
    });
  }

  test("health and readiness answer JSON without a session", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    for (const path of ["/api/healthz", "/api/readyz"]) {
      const res = await anon.get(path);
      expect(res.status(), path).toBe(200);
      expect(res.headers()["content-type"]).toContain("application/json");
      await res.json();
    }
  });
});

test.describe("Bearer credentials that are not API keys", () => {
  const garbage = ["garbage", "frk_nope_nope", "frk_" + "a".repeat(40), "null", '\'; DROP TABLE "User"; --'];
  for (const value of garbage) {
    test(`Authorization: Bearer ${value.slice(0, 24)} -> 401`, async ({ apiAs }) => {
      const anon = await apiAs("anonymous");
      const res = await anon.get("/api/v1/settings", { headers: { Authorization: `Bearer ${value}` } });
      await expectApiError(res, 401, "unauthenticated");
    });
  }

  test("an empty or non-Bearer Authorization header -> 401", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    for (const header of ["Bearer", "Bearer ", "Basic YWRtaW46YWRtaW4=", "frk_x_y"]) {
      await expectApiError(await anon.get("/api/v1/audit", { headers: { Authorization: header } }), 401, "unauthenticated");
    }
  });

  test("the admin's session token replayed as a Bearer token -> 401", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    const res = await anon.get("/api/v1/settings", { headers: { Authorization: `Bearer ${sessionToken("admin")}` } });
    await expectApiError(res, 401, "unauthenticated");
  });

  test("a garbage Bearer token next to a valid admin cookie is still refused (no fallback to the cookie)", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const res = await admin.get("/api/v1/settings", { headers: { Authorization: "Bearer garbage" } });
    await expectApiError(res, 401, "unauthenticated");
  });
});

test.describe("forged session cookies", () => {
  test("a tampered session token -> 401", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    const token = sessionToken("viewer");
    // Flip a character in the middle of the encrypted payload.
    const i = Math.floor(token.length / 2);
    const tampered = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
    const res = await anon.get("/api/v1/audit", { headers: { Cookie: `next-auth.session-token=${tampered}` } });
    await expectApiError(res, 401, "unauthenticated");
  });

  test("the real token works with the same hand-made Cookie header (control)", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    const res = await anon.get("/api/v1/settings", { headers: { Cookie: sessionCookieHeader("admin") } });
    expect(res.status()).toBe(200);
  });
});
