// Set-password links, on a migrated database of TEST_ENGINE: an admin adds a person without
// typing a password and hands them a one-time link; only its hash is stored, it works once and
// until it expires, a newer link replaces it, single sign-on users get none, and every step is in
// the audit log without the secret.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PASSWORD_LINK_HOURS } from "@/lib/domain/users";
import { knownError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { verifyPassword } from "@/lib/server/auth/password";
import { db } from "@/lib/server/db/client";
import { checkPasswordLink, createPasswordLink, redeemPasswordLink } from "@/lib/server/users/password-links";
import { createUser } from "@/lib/server/users/users";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const admin: Actor = { type: "user", id: null, label: "admin@example.com" };
const PASSWORD = "a-long-enough-passphrase";

/** The secret after the `#`. */
const tokenOf = (url: string) => new URL(url).hash.slice(1);

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (err) {
    const known = knownError(err) as { code?: string };
    return known.code ?? "not an ApiError";
  }
  return "no error";
}

describe(`set-password links on ${testEngine()}`, () => {
  test("a user added without a password gets a link that sets it once, audited without the secret", async () => {
    const created = await createUser(admin, { email: "dana@example.com", role: "operator" });
    assert.equal(created.passwordSet, false);
    assert.ok(created.passwordLink, "the answer carries the link");
    const url = new URL(created.passwordLink.url);
    assert.equal(url.pathname, "/set-password");
    assert.equal(url.search, "", "the secret is never in the query string (access logs keep those)");
    const token = tokenOf(created.passwordLink.url);
    const hours = (Date.parse(created.passwordLink.expiresAt) - Date.now()) / 3_600_000;
    assert.ok(hours > PASSWORD_LINK_HOURS - 0.1 && hours <= PASSWORD_LINK_HOURS, `expires in ${hours} h`);

    const stored = await db().passwordLink.findMany({ omit: { tokenHash: false } });
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.tokenHash, token, "only a hash is stored");

    assert.deepEqual(await checkPasswordLink(token), { email: "dana@example.com", expiresAt: created.passwordLink.expiresAt });
    assert.deepEqual(await redeemPasswordLink(token, PASSWORD), { email: "dana@example.com" });
    const user = await db().user.findUniqueOrThrow({ where: { email: "dana@example.com" }, omit: { passwordHash: false } });
    assert.ok(await verifyPassword(PASSWORD, user.passwordHash!));
    assert.equal(user.sessionVersion, 1, "a new password ends older sessions");

    assert.equal(await codeOf(redeemPasswordLink(token, "another-long-passphrase")), "password_link_invalid");
    assert.equal(await codeOf(checkPasswordLink(token)), "password_link_invalid");

    const audit = await db().auditLog.findMany({ where: { targetId: user.id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      audit.map((a) => [a.action, a.actorLabel]),
      [
        ["user.create", "admin@example.com"],
        ["user.passwordLink", "admin@example.com"],
        ["user.passwordSet", "dana@example.com"],
      ],
    );
    assert.ok(!audit.some((a) => a.details.includes(token)), "the secret is never in the audit log");
  });

  test("a newer link replaces the older one; an expired link does nothing", async () => {
    const created = await createUser(admin, { email: "erin@example.com", role: "viewer" });
    const first = tokenOf(created.passwordLink!.url);
    const second = await createPasswordLink(admin, created.id);
    assert.equal(await codeOf(checkPasswordLink(first)), "password_link_invalid");
    const later = new Date(Date.parse(second.expiresAt) + 1);
    assert.equal(await codeOf(redeemPasswordLink(tokenOf(second.url), PASSWORD, later)), "password_link_invalid");
    const user = await db().user.findUniqueOrThrow({ where: { id: created.id }, omit: { passwordHash: false } });
    assert.equal(user.passwordHash, null, "nothing was set");
  });

  test("two tabs submitting one link at once set the password once", async () => {
    const created = await createUser(admin, { email: "faye@example.com", role: "viewer" });
    const token = tokenOf(created.passwordLink!.url);
    const results = await Promise.allSettled([
      redeemPasswordLink(token, PASSWORD),
      redeemPasswordLink(token, "other-long-passphrase"),
    ]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    const sets = await db().auditLog.count({ where: { targetId: created.id, action: "user.passwordSet" } });
    assert.equal(sets, 1);
  });

  test("single sign-on users and unknown users get no link; a typed password needs none", async () => {
    const sso = await db().user.create({ data: { email: "sso@example.com", role: "viewer", oidcSubject: "sub-1" } });
    assert.equal(await codeOf(createPasswordLink(admin, sso.id)), "password_not_needed");
    assert.equal(await codeOf(createPasswordLink(admin, "no-such-user")), "not_found");
    const typed = await createUser(admin, { email: "gus@example.com", role: "viewer", password: PASSWORD });
    assert.equal(typed.passwordLink, null);
    assert.equal(typed.passwordSet, true);
    assert.equal(await codeOf(checkPasswordLink("A".repeat(43))), "password_link_invalid");
  });
});
