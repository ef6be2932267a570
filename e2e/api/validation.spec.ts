// Bad input gets 400 `invalid_request` with `details` naming each offending field, and never
// changes anything.
import { expectApiError, expect, SAME_ORIGIN, test } from "../fixtures";

type Details = { field: string; message: string }[];

const BAD_SETTINGS: { name: string; body: unknown; field: string }[] = [
  { name: "a string for a number", body: { notReadyThresholdSeconds: "soon" }, field: "notReadyThresholdSeconds" },
  { name: "below the minimum", body: { notReadyThresholdSeconds: 5 }, field: "notReadyThresholdSeconds" },
  { name: "a fraction", body: { certificateValidityDays: 1.5 }, field: "certificateValidityDays" },
  { name: "an unknown field", body: { colour: "blue" }, field: "colour" },
  { name: "an invalid label key", body: { requiredLabels: ["not a label!"] }, field: "requiredLabels.0" },
  {
    name: "a heartbeat not shorter than the threshold",
    body: { notReadyThresholdSeconds: 30, heartbeatIntervalSeconds: 30 },
    field: "heartbeatIntervalSeconds",
  },
];

test.describe("PATCH /api/v1/settings with a bad body", () => {
  for (const { name, body, field } of BAD_SETTINGS) {
    test(`${name} -> 400 naming ${field}`, async ({ apiAs }) => {
      const admin = await apiAs("admin");
      const res = await admin.patch("/api/v1/settings", { data: body, headers: SAME_ORIGIN });
      const error = await expectApiError(res, 400, "invalid_request");
      const details = error.details as Details;
      expect(Array.isArray(details), JSON.stringify(error)).toBeTruthy();
      expect(details.map((d) => d.field)).toContain(field);
    });
  }

  test("an empty object -> 400", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    await expectApiError(await admin.patch("/api/v1/settings", { data: {}, headers: SAME_ORIGIN }), 400, "invalid_request");
  });

  test("a body that is not JSON -> 400", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const res = await admin.patch("/api/v1/settings", {
      data: "{ notReadyThresholdSeconds: ",
      headers: { ...SAME_ORIGIN, "Content-Type": "application/json" },
    });
    await expectApiError(res, 400, "invalid_request");
  });

  test("a body larger than 64 KiB -> 413", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const res = await admin.patch("/api/v1/settings", {
      data: { requiredLabels: Array.from({ length: 10_000 }, (_, i) => `label-${i}`) },
      headers: SAME_ORIGIN,
    });
    await expectApiError(res, 413, "payload_too_large");
  });

  test("none of the bad bodies changed the settings", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const settings = (await (await admin.get("/api/v1/settings")).json()) as Record<string, unknown>;
    expect(settings.notReadyThresholdSeconds).not.toBe(5);
    expect(settings.notReadyThresholdSeconds).not.toBe(30);
    expect(settings).not.toHaveProperty("colour");
  });
});

test.describe("other bad input", () => {
  test("POST /api/v1/users with a short password and an unknown role -> 400 naming both", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const res = await admin.post("/api/v1/users", {
      data: { email: "short@fleet.test", password: "short", role: "root" },
      headers: SAME_ORIGIN,
    });
    const error = await expectApiError(res, 400, "invalid_request");
    const fields = (error.details as Details).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(["password", "role"]));
  });

  test("GET /api/v1/audit with a limit out of range -> 400 naming limit", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const error = await expectApiError(await admin.get("/api/v1/audit?limit=100000"), 400, "invalid_request");
    expect((error.details as Details).map((d) => d.field)).toContain("limit");
  });

  test("errors never carry stack traces or SQL", async ({ apiAs }) => {
    const admin = await apiAs("admin");
    const res = await admin.get("/api/v1/audit?cursor=-1&limit=abc");
    const text = await res.text();
    expect(res.status()).toBe(400);
    expect(text).not.toMatch(/at \w+ \(|prisma|SELECT |\.ts:\d+/i);
  });
});
