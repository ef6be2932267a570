// Webhook URLs as the WHATWG URL parser reads them, on the engine TEST_ENGINE selects: a spelling
// the parser forgives (`http:host/x`, `http:/host`, backslashes, tabs) is stored, shown and
// delivered to in its canonical form, and the audit log, which operators read, keeps only its
// origin: never the path, where Slack and others keep their credential.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { webhookCreateSchema, webhookPatchSchema } from "@/lib/domain/webhooks";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { updateSettings } from "@/lib/server/settings/settings";
import { deliverDueWebhooks } from "@/lib/server/webhooks/deliver-webhooks";
import { createWebhook, deleteWebhook, sendTestWebhook, updateWebhook } from "@/lib/server/webhooks/subscriptions";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver";

const engine = testEngine();
appDatabase();
const admin: Actor = { type: "user", id: null, label: "admin@example.com" };
const SECRET_PATH = "T0001/B0001/abcdefghijklmnopqrstuvwx";

describe(`webhook URLs in canonical form on ${engine}`, () => {
  let receiver: Receiver;
  let host: string;
  before(async () => {
    receiver = await startReceiver();
    host = new URL(receiver.origin).host;
    // Loopback is a private target: the test's receiver needs the admin's switch.
    await updateSettings(admin, { webhookAllowPrivateTargets: true });
  });
  after(() => receiver.close());

  test("a forgiving spelling is stored, shown and delivered to as the parser reads it; the audit keeps its origin", async () => {
    const spelled = `http:${host}\\services\\${SECRET_PATH.replaceAll("/", "\\")}`;
    const created = await createWebhook(admin, webhookCreateSchema.parse({ url: spelled, events: ["cluster.removed"] }));
    const canonical = `${receiver.origin}/services/${SECRET_PATH}`;
    assert.equal(created.url, canonical);
    assert.equal((await db().webhookSubscription.findUniqueOrThrow({ where: { id: created.id } })).url, canonical);

    await sendTestWebhook(admin, created.id);
    assert.equal(await deliverDueWebhooks(), 1);
    assert.deepEqual(
      receiver.received.splice(0).map((r) => r.path),
      [`/services/${SECRET_PATH}`],
    );

    const moved = await updateWebhook(
      admin,
      created.id,
      webhookPatchSchema.parse({ url: `http:/${host}/ser\tvices/${SECRET_PATH}?token=abc` }),
    );
    assert.equal(moved.url, `${receiver.origin}/services/${SECRET_PATH}?token=abc`);
    await deleteWebhook(admin, created.id);

    const rows = await db().auditLog.findMany({ where: { targetId: created.id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      rows.map((r) => [r.action, JSON.parse(r.details) as unknown]),
      [
        ["webhook.create", { url: receiver.origin, events: ["cluster.removed"], format: "json", enabled: true }],
        ["webhook.test", {}],
        ["webhook.update", { changes: { url: { from: receiver.origin, to: receiver.origin } } }],
        ["webhook.delete", { url: receiver.origin }],
      ],
    );
    assert.ok(!rows.some((r) => r.details.includes("abcdefghijklmnop")), "no path in the audit log");
  });

  test("a URL stored in a forgiving spelling before keeps its path out of the audit log when changed", async () => {
    const created = await createWebhook(
      admin,
      webhookCreateSchema.parse({ url: `${receiver.origin}/hook`, events: ["cluster.removed"], enabled: false }),
    );
    // As a row saved before URLs were stored canonical may hold it.
    await db().webhookSubscription.update({
      where: { id: created.id },
      data: { url: `https:93.184.216.34/services/${SECRET_PATH}` },
    });
    await updateWebhook(admin, created.id, webhookPatchSchema.parse({ url: `${receiver.origin}/new` }));
    const update = await db().auditLog.findFirstOrThrow({ where: { targetId: created.id, action: "webhook.update" } });
    assert.deepEqual(JSON.parse(update.details), {
      changes: { url: { from: "https://93.184.216.34", to: receiver.origin } },
    });
  });

  test("credentials and other schemes are refused however they are spelled", () => {
    for (const url of [`http:user:pw@${host}/x`, `http:\\\\user@${host}\\x`, `ftp:/${host}/x`, "http:"])
      assert.equal(webhookCreateSchema.safeParse({ url, events: ["cluster.removed"] }).success, false, url);
  });
});
