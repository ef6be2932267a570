// The app's own Prisma client (driver adapter of TEST_ENGINE) on a database built by the committed
// migrations: the generated client and the migrated schema agree, secrets stay out of results,
// and services that write state and audit do so together.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import { listAudit } from "@/lib/server/audit/list-audit";
import { bootstrapAdmin } from "@/lib/server/auth/bootstrap-admin";
import { verifyPassword } from "@/lib/server/auth/password";
import { db } from "@/lib/server/db/client";
import { getSettings, updateSettings } from "@/lib/server/settings/settings";
import { DEFAULT_SETTINGS } from "@/lib/domain/settings";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

const engine = testEngine();
const database = appDatabase();

describe(`the app's database client on ${engine}`, () => {
  test("two instances bootstrapping at once create exactly one first admin", async () => {
    const config = { email: "first-admin@example.com", password: "a long enough password" };
    const results = await Promise.all([bootstrapAdmin(db(), config), bootstrapAdmin(db(), config)]);
    assert.equal(results.filter(Boolean).length, 1, `one call creates the admin: ${JSON.stringify(results)}`);
    assert.equal(await db().user.count(), 1);
    assert.equal(await bootstrapAdmin(db(), config), null, "a later start creates nobody");
  });

  test("a user read back omits the password hash unless asked for it", async () => {
    const user = await db().user.findUniqueOrThrow({ where: { email: "first-admin@example.com" } });
    assert.equal(user.role, "admin");
    assert.ok(!("passwordHash" in user), "passwordHash is omitted by default");
    const withHash = await db().user.findUniqueOrThrow({
      where: { email: "first-admin@example.com" },
      omit: { passwordHash: false },
    });
    assert.ok(withHash.passwordHash && (await verifyPassword("a long enough password", withHash.passwordHash)));
  });

  test("settings start at their defaults; an update is stored and audited with the change", async () => {
    assert.deepEqual(await getSettings(), DEFAULT_SETTINGS);
    const next = await updateSettings(SYSTEM_ACTOR, { notReadyThresholdSeconds: 90, requiredLabels: ["env"] });
    assert.equal(next.notReadyThresholdSeconds, 90);
    assert.deepEqual(next.requiredLabels, ["env"]);
    assert.deepEqual(await getSettings(), next);

    const { items } = await listAudit({ action: "settings.update", limit: 10 });
    assert.equal(items.length, 1);
    assert.deepEqual(items[0]!.details, {
      changes: { notReadyThresholdSeconds: { from: 60, to: 90 }, requiredLabels: { from: ["env", "region"], to: ["env"] } },
    });
  });

  test("an update that changes nothing writes no audit entry", async () => {
    await updateSettings(SYSTEM_ACTOR, { notReadyThresholdSeconds: 90 });
    assert.equal((await listAudit({ action: "settings.update", limit: 10 })).items.length, 1);
  });

  test("audit pages are newest first and the cursor continues where the last page ended", async () => {
    for (let i = 0; i < 5; i++) {
      await db().auditLog.create({ data: { actorType: "system", actorLabel: "system", action: `test.page.${i}` } });
    }
    const first = await listAudit({ action: "test.page.", limit: 3 });
    assert.deepEqual(
      first.items.map((e) => e.action),
      ["test.page.4", "test.page.3", "test.page.2"],
    );
    assert.ok(first.nextCursor);
    const second = await listAudit({ action: "test.page.", limit: 3, cursor: Number(first.nextCursor) });
    assert.deepEqual(
      second.items.map((e) => e.action),
      ["test.page.1", "test.page.0"],
    );
    assert.equal(second.nextCursor, null);
  });

  test("a statement outside an open transaction neither reads its snapshot nor is rolled back with it", async () => {
    // Another request's transaction, open across an await (SQLite shares one connection with it).
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const other = db()
      .$transaction(async (tx) => {
        await tx.auditLog.count(); // its snapshot starts here
        opened();
        await new Promise((resolve) => setTimeout(resolve, 200));
        throw new Error("the other request fails");
      })
      .catch((err: Error) => err.message);
    await open;
    // Committed meanwhile by another connection (on SQLite: the agent workers' writer, a CLI).
    await database.current.query(
      `INSERT INTO "AuditLog" ("actorType", "actorLabel", "action", "at") VALUES ('system', 'system', 'test.elsewhere', ${engine === "sqlite" ? Date.now() : "now()"})`,
    );
    const seen = await db().auditLog.count({ where: { action: "test.elsewhere" } });
    await db().auditLog.create({ data: { actorType: "system", actorLabel: "system", action: "test.beside" } });
    assert.equal(await other, "the other request fails");
    assert.equal(seen, 1, "a read sees what was committed before it");
    assert.equal(await db().auditLog.count({ where: { action: "test.beside" } }), 1, "a write outlives the other's rollback");
  });
});
