// Privilege escalation, tried by calling the endpoints directly (as a script or an attacker would):
// each attempt is refused and changes nothing. Which role may call which endpoint is the generated
// role matrix's (tests/system/role-matrix.test.ts, from the route declarations).
import { ACCOUNTS, expectApiError, expect, SAME_ORIGIN, test } from "../fixtures";

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

  test("an operator cannot add a Cluster API source (another cluster's credentials): refused, nothing stored", async ({
    apiAs,
  }) => {
    const operator = await apiAs("operator");
    const name = `esc-${Date.now().toString(36)}`;
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{ name: m, cluster: { server: 'https://127.0.0.1:1' } }]",
      "users: [{ name: u, user: { token: escalate } }]",
      "contexts: [{ name: m, context: { cluster: m, user: u } }]",
      "current-context: m",
    ].join("\n");
    await expectApiError(
      await operator.post("/api/v1/cluster-api/sources", {
        data: { name, kubeconfig, allowPrivateTargets: true },
        headers: SAME_ORIGIN,
      }),
      403,
      "forbidden",
    );
    const admin = await apiAs("admin");
    const sources = (await (await admin.get("/api/v1/cluster-api/sources")).json()) as { items: { name: string }[] };
    expect(sources.items.map((s) => s.name)).not.toContain(name);
  });
});
