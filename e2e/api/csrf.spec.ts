// Cross-site request forgery: a page on another site makes the browser send the admin's session
// cookie. Session-authenticated mutations must name the console's own Origin (docs/security.md).
import { BASE_URL, expectApiError, expect, sessionCookieHeader, test } from "../fixtures";

const EVIL = "https://evil.example";

test.describe("session-cookie mutations from elsewhere -> 403 csrf_rejected", () => {
  const origins: { label: string; headers: Record<string, string> }[] = [
    { label: `Origin: ${EVIL}`, headers: { Origin: EVIL } },
    { label: "no Origin header", headers: {} },
    { label: "Origin: null (sandboxed frame, file://)", headers: { Origin: "null" } },
    { label: "a look-alike host", headers: { Origin: "http://127.0.0.1.evil.example:3210" } },
    { label: "the right Origin but Sec-Fetch-Site: cross-site", headers: { Origin: BASE_URL, "Sec-Fetch-Site": "cross-site" } },
  ];

  for (const { label, headers } of origins) {
    test(`PATCH /api/v1/settings with ${label}`, async ({ apiAs }) => {
      const anon = await apiAs("anonymous");
      const res = await anon.patch("/api/v1/settings", {
        data: { certificateValidityDays: 777 },
        headers: { ...headers, Cookie: sessionCookieHeader("admin") },
      });
      await expectApiError(res, 403, "csrf_rejected");
    });

    test(`POST /api/v1/users with ${label}`, async ({ apiAs }) => {
      const anon = await apiAs("anonymous");
      const email = `csrf-${Date.now()}-${Math.random().toString(36).slice(2)}@evil.example`;
      const res = await anon.post("/api/v1/users", {
        data: { email, password: "a-long-password-123", role: "admin" },
        headers: { ...headers, Cookie: sessionCookieHeader("admin") },
      });
      await expectApiError(res, 403, "csrf_rejected");
    });
  }

  test("a classic cross-site HTML form post (urlencoded, no preflight)", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    const res = await anon.post("/api/v1/users", {
      form: { email: "form@evil.example", password: "a-long-password-123", role: "admin" },
      headers: { Origin: EVIL, Cookie: sessionCookieHeader("admin") },
    });
    await expectApiError(res, 403, "csrf_rejected");
  });

  test("nothing forged above took effect", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const settings = (await (await admin.get("/api/v1/settings")).json()) as { certificateValidityDays: number };
    expect(settings.certificateValidityDays).not.toBe(777);
    const users = (await (await admin.get("/api/v1/users")).json()) as { items: { email: string }[] };
    expect(users.items.filter((u) => u.email.endsWith("@evil.example"))).toEqual([]);
  });
});

test.describe("what is allowed", () => {
  test("the same mutation from the console's own origin succeeds (control)", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    // Writes back the value it reads: other specs see the fleet's settings unchanged.
    const admin = await apiAs("admin");
    const { certificateValidityDays } = (await (await admin.get("/api/v1/settings")).json()) as {
      certificateValidityDays: number;
    };
    const res = await anon.patch("/api/v1/settings", {
      data: { certificateValidityDays },
      headers: { Origin: BASE_URL, Cookie: sessionCookieHeader("admin") },
    });
    expect(res.status(), await res.text()).toBe(200);
  });

  test("a cross-site read is answered, but without CORS headers a foreign page cannot read it", async ({ apiAs }) => {
    const anon = await apiAs("anonymous");
    const res = await anon.get("/api/v1/settings", { headers: { Origin: EVIL, Cookie: sessionCookieHeader("admin") } });
    expect(res.status()).toBe(200);
    expect(res.headers()["access-control-allow-origin"]).toBeUndefined();
    expect(res.headers()["access-control-allow-credentials"]).toBeUndefined();
  });
});
