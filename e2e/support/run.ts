// Facts about one e2e run shared by the config, the global setup and the tests: where the server
// listens, its data dir, the accounts and where their signed-in browser state is saved.
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";

export const PORT = Number(process.env.E2E_PORT || 3210);
export const AGENT_PORT = Number(process.env.E2E_AGENT_PORT || 8643);
// 127.0.0.1 everywhere (not localhost), so session cookies always match the host they were set for.
export const BASE_URL = `http://127.0.0.1:${PORT}`;

// The config is loaded by the runner and again by every worker: the first load picks the run's
// temp dir, and workers and the web server inherit it through the environment. Only named here:
// the server creates its data dir and the global setup the rest (so `--list` leaves nothing behind).
process.env.E2E_RUN_DIR ||= path.join(tmpdir(), `fleet-e2e-${randomBytes(6).toString("hex")}`);
export const RUN_DIR = process.env.E2E_RUN_DIR;
export const DATA_DIR = path.join(RUN_DIR, "data");
export const AUTH_DIR = path.join(RUN_DIR, "auth");
// The server seals its CA key with this run's own key-encryption key (the sealed path is the one tested).
process.env.E2E_FLEET_CA_KEK ||= randomBytes(32).toString("base64");
export const FLEET_CA_KEK = process.env.E2E_FLEET_CA_KEK;

export type Role = "admin" | "operator" | "viewer";
export const ROLES: readonly Role[] = ["admin", "operator", "viewer"];

export type Account = { role: Role; email: string; password: string };

/** The first admin comes from ADMIN_EMAIL/ADMIN_PASSWORD; the global setup creates the others. */
export const ACCOUNTS: Record<Role, Account> = {
  admin: { role: "admin", email: "admin@fleet.test", password: "e2e-admin-password-1" },
  operator: { role: "operator", email: "operator@fleet.test", password: "e2e-operator-password-1" },
  viewer: { role: "viewer", email: "viewer@fleet.test", password: "e2e-viewer-password-1" },
};

/** Playwright storageState file of a signed-in role. */
export function authFile(role: Role): string {
  return path.join(AUTH_DIR, `${role}.json`);
}
