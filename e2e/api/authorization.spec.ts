// What each role may do, checked by calling the endpoints directly (as a script or an attacker
// would), not by looking for hidden buttons: admin > operator > viewer.
import { ACCOUNTS, expectApiError, expect, SAME_ORIGIN, test, type Role } from "../fixtures";

type Call = { method: "GET" | "PATCH" | "POST"; path: string; data?: unknown; minRole: Role };

const CALLS: Call[] = [
  { method: "GET", path: "/api/v1/settings", minRole: "admin" },
  // A no-op change (the value is rejected before it matters for lower roles; for admins it is valid).
  { method: "PATCH", path: "/api/v1/settings", data: { certificateValidityDays: 30 }, minRole: "admin" },
  { method: "GET", path: "/api/v1/audit", minRole: "operator" },
  { method: "GET", path: "/api/v1/users", minRole: "admin" },
];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

for (const role of ["viewer", "operator", "admin"] as const) {
  test.describe(`as ${role}`, () => {
    for (const call of CALLS) {
      const allowed = RANK[role] >= RANK[call.minRole];
      test(`${call.method} ${call.path} -> ${allowed ? "200" : "403 forbidden"}`, async ({ apiAs }) => {
        const api = await apiAs(role);
        const res = await api.fetch(call.path, { method: call.method, data: call.data, headers: SAME_ORIGIN });
        if (allowed) expect(res.status(), await res.text()).toBe(200);
        else await expectApiError(res, 403, "forbidden");
      });
    }
  });
}

test.describe("privilege escalation attempts", () => {
  test("a viewer cannot create an admin account", async ({ apiAs }) => {
    const viewer = await apiAs("viewer");
    const email = `escalate-${Date.now()}@evil.example`;
    const res = await viewer.post("/api/v1/users", {
      data: { email, password: "a-long-password-123", role: "admin" },
      headers: SAME_ORIGIN,
    });
    await expectApiError(res, 403, "forbidden");
    const admin = await apiAs("admin");
    const users = (await (await admin.get("/api/v1/users")).json()) as { items: { email: string }[] };
    expect(users.items.map((u) => u.email)).not.toContain(email);
  });

  for (const role of ["viewer", "operator"] as const) {
    test(`a${role === "operator" ? "n" : ""} ${role} cannot promote itself to admin`, async ({ apiAs }) => {
      const admin = await apiAs("admin");
      const users = (await (await admin.get("/api/v1/users")).json()) as { items: { id: string; email: string; role: string }[] };
      const self = users.items.find((u) => u.email === ACCOUNTS[role].email);
      expect(self, `${role} account exists`).toBeTruthy();

      const api = await apiAs(role);
      const res = await api.patch(`/api/v1/users/${self!.id}`, { data: { role: "admin" }, headers: SAME_ORIGIN });
      await expectApiError(res, 403, "forbidden");

      const after = (await (await admin.get("/api/v1/users")).json()) as { items: { id: string; role: string }[] };
      expect(after.items.find((u) => u.id === self!.id)?.role).toBe(role);
    });
  }

  test("a viewer's settings change is refused and changes nothing", async ({ apiAs }) => {
    const viewer = await apiAs("viewer");
    await expectApiError(
      await viewer.patch("/api/v1/settings", { data: { certificateValidityDays: 666 }, headers: SAME_ORIGIN }),
      403,
      "forbidden",
    );
    const admin = await apiAs("admin");
    const settings = (await (await admin.get("/api/v1/settings")).json()) as { certificateValidityDays: number };
    expect(settings.certificateValidityDays).not.toBe(666);
  });
});
