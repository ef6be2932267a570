// How a webhook delivery is signed, on the engine TEST_ENGINE selects, as a loopback receiver gets
// it: the timestamped X-Fleet-Signature-V2 always; the replayable body-only X-Fleet-Signature only
// to a subscription that opts into it, an opt-in that is shown on the subscription and audited.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { webhookCreateSchema, webhookPatchSchema } from "@/lib/domain/webhooks";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { updateSettings } from "@/lib/server/settings/settings";
import { deliverDueWebhooks } from "@/lib/server/webhooks/deliver-webhooks";
import { createWebhook, getWebhook, sendTestWebhook, updateWebhook } from "@/lib/server/webhooks/subscriptions";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";
import { signatureValid, startReceiver, type Receiver } from "../helpers/webhook-receiver";

const engine = testEngine();
appDatabase();
const admin: Actor = { type: "user", id: null, label: "admin@example.com" };

describe(`webhook signature headers on ${engine}`, () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    // Loopback is a private target: the test's receiver needs the admin's switch.
    await updateSettings(admin, { webhookAllowPrivateTargets: true });
  });
  after(() => receiver.close());

  /** Sends a test event to the subscription and returns the request the receiver got. */
  async function deliveredTo(id: string) {
    await sendTestWebhook(admin, id);
    assert.equal(await deliverDueWebhooks(), 1);
    const [r] = receiver.received.splice(0);
    assert.ok(r, "delivered");
    return r;
  }
  const bodyOnly = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

  test("a subscription is sent only the timestamped signature unless it opts into the legacy header", async () => {
    const created = await createWebhook(
      admin,
      webhookCreateSchema.parse({ url: `${receiver.origin}/default`, events: ["cluster.removed"] }),
    );
    assert.equal(created.legacySignature, false);
    const r = await deliveredTo(created.id);
    assert.ok(signatureValid(r, created.secret), "X-Fleet-Signature-V2 verifies");
    assert.equal(r.headers["x-fleet-signature"], undefined, "no replayable body-only signature");
    const audit = await db().auditLog.findFirstOrThrow({ where: { targetId: created.id, action: "webhook.create" } });
    assert.equal((JSON.parse(audit.details) as Record<string, unknown>).legacySignature, undefined);
  });

  test("opting in on create or by PATCH sends X-Fleet-Signature beside V2; each change is audited", async () => {
    const legacy = await createWebhook(
      admin,
      webhookCreateSchema.parse({ url: `${receiver.origin}/legacy`, events: ["cluster.removed"], legacySignature: true }),
    );
    assert.equal(legacy.legacySignature, true);
    let r = await deliveredTo(legacy.id);
    assert.equal(r.headers["x-fleet-signature"], bodyOnly(legacy.secret, r.body));
    assert.ok(signatureValid(r, legacy.secret));

    const moving = await createWebhook(
      admin,
      webhookCreateSchema.parse({ url: `${receiver.origin}/moving`, events: ["cluster.removed"] }),
    );
    assert.equal(
      (await updateWebhook(admin, moving.id, webhookPatchSchema.parse({ legacySignature: true }))).legacySignature,
      true,
    );
    r = await deliveredTo(moving.id);
    assert.equal(r.headers["x-fleet-signature"], bodyOnly(moving.secret, r.body));
    await updateWebhook(admin, moving.id, webhookPatchSchema.parse({ legacySignature: false }));
    assert.equal((await getWebhook(moving.id)).legacySignature, false);
    r = await deliveredTo(moving.id);
    assert.equal(r.headers["x-fleet-signature"], undefined);
    assert.ok(signatureValid(r, moving.secret));

    const audit = await db().auditLog.findMany({
      where: { targetId: { in: [legacy.id, moving.id] }, action: { in: ["webhook.create", "webhook.update"] } },
      orderBy: { id: "asc" },
    });
    // What the log says of the header: set on create, or changed from one value to the other.
    const said = (details: string) => {
      const d = JSON.parse(details) as { legacySignature?: boolean; changes?: { legacySignature?: unknown } };
      return d.legacySignature ?? d.changes?.legacySignature ?? null;
    };
    assert.deepEqual(
      audit.map((a) => [a.targetId === legacy.id ? "legacy" : "moving", a.action, said(a.details)]),
      [
        ["legacy", "webhook.create", true],
        ["moving", "webhook.create", null],
        ["moving", "webhook.update", { from: false, to: true }],
        ["moving", "webhook.update", { from: true, to: false }],
      ],
    );
  });
});
