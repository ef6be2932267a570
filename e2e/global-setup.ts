// Runs once the server is up: signs the first admin in, creates an operator and a viewer through
// the admin API, and saves each role's signed-in state for the tests (no UI log-in per test).
import { mkdirSync } from "node:fs";
import { request, type FullConfig } from "@playwright/test";
import { SAME_ORIGIN, signIn } from "./support/auth";
import { ACCOUNTS, AUTH_DIR, BASE_URL, authFile, type Role } from "./support/run";

export default async function globalSetup(_config: FullConfig) {
  mkdirSync(AUTH_DIR, { recursive: true });
  const admin = await request.newContext({ baseURL: BASE_URL });
  try {
    await signIn(admin, ACCOUNTS.admin);
    await admin.storageState({ path: authFile("admin") });
    for (const role of ["operator", "viewer"] as const satisfies Role[]) {
      const { email, password } = ACCOUNTS[role];
      const res = await admin.post("/api/v1/users", {
        data: { email, password, role, name: `E2E ${role}` },
        headers: SAME_ORIGIN,
      });
      // 409: the account exists already (a database reused on purpose); anything else is a failure.
      if (res.status() !== 201 && res.status() !== 409) {
        throw new Error(`POST /api/v1/users (${role}) answered ${res.status()}: ${await res.text()}`);
      }
      const ctx = await request.newContext({ baseURL: BASE_URL });
      try {
        await signIn(ctx, ACCOUNTS[role]);
        await ctx.storageState({ path: authFile(role) });
      } finally {
        await ctx.dispose();
      }
    }
  } finally {
    await admin.dispose();
  }
}
