// Webhook notifications against a real HTTP receiver on loopback, on TEST_ENGINE. First the
// services in this process on a migrated database (the delivery job run with a chosen clock, so
// retries 10 s apart take no 10 s): the signature over the timestamp and the body checks out with
// the secret shown once and not after 5 minutes, the audit log keeps a webhook URL's origin only,
// a 500 and a receiver that never answers are retried (each attempt signed afresh), a cluster's
// events arrive in order while another cluster's are not held up, a NotReady that recovers within
// the hold sends nothing, flapping is sent once, removals, pauses and the jobs' events are
// enqueued (once per key), https targets go through HTTPS_PROXY (tunnelled to the checked
// address) unless NO_PROXY names them, and private targets are refused at subscribe and at
// delivery time unless allowed.
// Then the real server: the admin API, and a crash with undelivered rows after which every
// delivery arrives, none twice under different ids.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { after, before, describe, test } from "node:test";
import { webhookPayloadSchema, type WebhookPayload } from "@/lib/domain/webhooks";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { sweepStatuses } from "@/lib/server/heartbeats/status-sweeper";
import { updateSettings } from "@/lib/server/settings/settings";
import { deliverDueWebhooks } from "@/lib/server/webhooks/deliver-webhooks";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  sendTestWebhook,
  updateWebhook,
} from "@/lib/server/webhooks/subscriptions";
import { inTransaction } from "@/lib/server/db/transaction";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { pauseRollout } from "@/lib/server/rollouts/pause-rollout";
import {
  DELIVERY_LOG_ROWS,
  notifyExpiringCertificates,
  notifyRegistrationFailures,
  pruneWebhookDeliveries,
} from "@/lib/server/webhooks/watch-fleet";
import { appDatabase } from "../helpers/app-database";
import { startFleetServer, TEST_KEK, type FleetServer } from "../helpers/fleet-server";
import { testEngine } from "../helpers/test-database";
import { until } from "../helpers/until";
import { signatureValid, startReceiver, type Receiver } from "../helpers/webhook-receiver";

const engine = testEngine();
// Secrets are sealed under the KEK, as in the test servers (lib/env.ts reads it on first use).
process.env.FLEET_CA_KEK = TEST_KEK;

// An HTTPS_PROXY on loopback that records each CONNECT and refuses it (a refusal is enough to
// see which address the tunnel was asked for); NO_PROXY names a host that must go direct.
const connects: string[] = [];
const proxy = http.createServer();
proxy.on("connect", (req: http.IncomingMessage, socket: Duplex) => {
  connects.push(String(req.url));
  socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
});
await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
process.env.HTTPS_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
process.env.NO_PROXY = "127.0.0.1";
after(() => proxy.close());
appDatabase();
const admin: Actor = { type: "user", id: null, label: "admin@example.com" };

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const fixedJitter = () => 0.5; // the schedule's own delays: 10 s, 20 s, ...

describe(`webhook delivery on ${engine}`, () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    // Loopback is a private target: the tests' receiver needs the admin's switch.
    await updateSettings(admin, { webhookAllowPrivateTargets: true });
  });
  after(async () => {
    await receiver.close();
  });

  test("a test event arrives signed with the secret shown once; the secret is sealed at rest", async () => {
    const created = await createWebhook(admin, { url: receiver.url, events: ["cluster.removed"], format: "json", enabled: true });
    assert.match(created.secret, /^whsec_/);
    const row = await db().webhookSubscription.findUniqueOrThrow({ where: { id: created.id }, omit: { secret: false } });
    assert.ok(!row.secret.includes(created.secret.slice(6)), "the stored column does not hold the secret");
    assert.match(row.secret, /"sealed"/);

    const queued = await sendTestWebhook(admin, created.id);
    assert.equal(queued.state, "pending");
    assert.equal(await deliverDueWebhooks(), 1);
    const [r] = receiver.received.splice(0);
    assert.ok(r);
    // Signed over "<timestamp>.<body>" with the time of sending; the replayable body-only header is not sent.
    const timestamp = String(r.headers["x-fleet-timestamp"]);
    assert.match(timestamp, /^\d+$/);
    const hmac = (text: string) => `sha256=${createHmac("sha256", created.secret).update(text).digest("hex")}`;
    assert.equal(r.headers["x-fleet-signature-v2"], hmac(`${timestamp}.${r.body}`));
    assert.equal(r.headers["x-fleet-signature"], undefined);
    assert.ok(signatureValid(r, created.secret), "X-Fleet-Signature-V2 verifies with the secret, on time");
    assert.ok(!signatureValid(r, `${created.secret}x`), "and not with another");
    assert.ok(!signatureValid({ ...r, at: r.at + 301_000 }, created.secret), "nor when replayed after 5 minutes");
    const payload = webhookPayloadSchema.parse(JSON.parse(r.body));
    assert.equal(payload.type, "webhook.test");
    assert.equal(payload.id, queued.id);
    assert.equal(r.headers["x-fleet-delivery"], queued.id);
    assert.equal(r.headers["x-fleet-event"], "webhook.test");
    const [log] = await listDeliveries(created.id, 10);
    assert.equal(log?.state, "delivered");
    assert.equal(log?.lastStatusCode, 200);
    assert.equal(log?.attempts, 1);
    assert.equal(typeof log?.lastLatencyMs, "number");
    await updateWebhook(admin, created.id, { enabled: false });
  });

  test("the audit log keeps a webhook URL's origin only: Slack-style URLs carry their credential in the path", async () => {
    const origin = new URL(receiver.url).origin;
    const slackLike = `${origin}/services/T0001/B0001/${"x".repeat(24)}`;
    const sub = await createWebhook(admin, { url: slackLike, events: ["cluster.removed"], format: "slack", enabled: false });
    await updateWebhook(admin, sub.id, { url: `${origin}/services/T0001/B0002/${"y".repeat(24)}?token=abc` });
    await deleteWebhook(admin, sub.id);
    const rows = await db().auditLog.findMany({ where: { targetId: sub.id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      rows.map((r) => [r.action, JSON.parse(r.details) as unknown]),
      [
        ["webhook.create", { url: origin, events: ["cluster.removed"], format: "slack", enabled: false }],
        ["webhook.update", { changes: { url: { from: origin, to: origin } } }],
        ["webhook.delete", { url: origin }],
      ],
    );
  });

  test("a 500 is retried after the backoff with the same delivery id, signed afresh, then delivered", async () => {
    const sub = await createWebhook(admin, { url: receiver.url, events: ["cluster.removed"], format: "json", enabled: true });
    let calls = 0;
    receiver.answer(() => (++calls === 1 ? 500 : 200));
    const queued = await sendTestWebhook(admin, sub.id);
    const t0 = new Date();
    await deliverDueWebhooks({ now: t0, random: fixedJitter });
    let [log] = await listDeliveries(sub.id, 1);
    assert.equal(log?.state, "pending");
    assert.equal(log?.lastStatusCode, 500);
    assert.equal(log?.attempts, 1);
    assert.equal(log?.nextAttemptAt, at(t0, 10_000).toISOString(), "the first retry is 10 s later");
    assert.equal(await deliverDueWebhooks({ now: at(t0, 5_000) }), 0, "not before it is due");
    assert.equal(await deliverDueWebhooks({ now: at(t0, 10_000) }), 1);
    [log] = await listDeliveries(sub.id, 1);
    assert.equal(log?.state, "delivered");
    assert.equal(log?.attempts, 2);
    const got = receiver.received.splice(0);
    assert.equal(got.length, 2);
    assert.deepEqual(
      got.map((r) => r.headers["x-fleet-delivery"]),
      [queued.id, queued.id],
    );
    assert.ok(got.every((r) => signatureValid(r, sub.secret)));
    await updateWebhook(admin, sub.id, { enabled: false });
  });

  test("a receiver that never answers times out and is retried", async () => {
    const sub = await createWebhook(admin, { url: receiver.url, events: ["cluster.removed"], format: "slack", enabled: true });
    receiver.answer(() => "hang");
    await sendTestWebhook(admin, sub.id);
    const t0 = new Date();
    const started = Date.now();
    await deliverDueWebhooks({ now: t0, timeoutMs: 400, random: fixedJitter });
    assert.ok(Date.now() - started < 5_000, "the attempt gave up at its timeout");
    let [log] = await listDeliveries(sub.id, 1);
    assert.equal(log?.state, "pending");
    assert.equal(log?.lastStatusCode, null);
    assert.match(log?.lastError ?? "", /no answer within 400 ms/);
    receiver.answer(() => 204);
    await deliverDueWebhooks({ now: at(t0, 10_000) });
    [log] = await listDeliveries(sub.id, 1);
    assert.equal(log?.state, "delivered");
    assert.equal(log?.lastStatusCode, 204);
    const got = receiver.received.splice(0);
    assert.equal(got.length, 2);
    // The Slack format: one text field, signed all the same.
    assert.deepEqual(Object.keys(JSON.parse(got[1]!.body) as object), ["text"]);
    assert.ok(signatureValid(got[1]!, sub.secret));
    await updateWebhook(admin, sub.id, { enabled: false });
  });

  test("a cluster's events arrive in order (a later one waits for a retrying earlier one); other clusters' do not wait", async () => {
    const sub = await createWebhook(admin, {
      url: receiver.url,
      events: ["cluster.notReady", "cluster.ready", "cluster.removed"],
      format: "json",
      enabled: true,
    });
    const t0 = new Date(Date.now() + 3_600_000);
    // Ready, last heard from 2 minutes ago: the sweeper at t0 records NotReady (threshold 60 s).
    await db().cluster.create({
      data: {
        id: "c-order",
        name: "order",
        status: "Ready",
        phase: "Active",
        lastHeartbeatAt: at(t0, -120_000),
        apiServerHealth: "ok",
      },
    });
    assert.equal(await sweepStatuses(t0), 1);
    assert.equal(await deliverDueWebhooks({ now: at(t0, 30_000) }), 0, "NotReady is held for 60 s");
    let notReadyCalls = 0;
    receiver.answer((r) =>
      (JSON.parse(r.body) as WebhookPayload).type === "cluster.notReady" && ++notReadyCalls === 1 ? 500 : 200,
    );
    await deliverDueWebhooks({ now: at(t0, 61_000), random: fixedJitter }); // NotReady: 500, retry at +71 s
    // Back: Ready is recorded at +65 s and is due at once, but its NotReady is still to be delivered.
    await db().cluster.update({ where: { id: "c-order" }, data: { lastHeartbeatAt: at(t0, 65_000) } });
    assert.equal(await sweepStatuses(at(t0, 65_000)), 1);
    // Meanwhile another cluster is removed: its event is not held up by this one's.
    await db().$transaction((tx) =>
      enqueueWebhookEvent(tx, {
        type: "cluster.removed",
        cluster: { id: "c-other", name: "other" },
        data: { reason: "test" },
        occurredAt: at(t0, 66_000),
      }),
    );
    assert.equal(await deliverDueWebhooks({ now: at(t0, 67_000) }), 1, "only the other cluster's removal goes");
    assert.deepEqual(
      receiver.payloads().map((p) => `${p.type}:${p.cluster?.id}`),
      ["cluster.notReady:c-order", "cluster.removed:c-other"],
    );
    await deliverDueWebhooks({ now: at(t0, 71_000) }); // NotReady again: 200
    await deliverDueWebhooks({ now: at(t0, 71_500) }); // then Ready
    assert.deepEqual(
      receiver.payloads().map((p) => `${p.type}:${p.cluster?.id}`),
      ["cluster.notReady:c-order", "cluster.removed:c-other", "cluster.notReady:c-order", "cluster.ready:c-order"],
    );
    const ready = receiver.payloads()[3]!;
    assert.deepEqual(ready.data, { from: "NotReady", to: "Ready", reason: ready.data.reason });
    receiver.received.splice(0);
    await db().cluster.delete({ where: { id: "c-order" } });
    await updateWebhook(admin, sub.id, { enabled: false });
  });

  test("NotReady and Ready again within the hold send nothing; flapping is sent once an hour", async () => {
    const sub = await createWebhook(admin, {
      url: receiver.url,
      events: ["cluster.notReady", "cluster.ready", "cluster.flapping"],
      format: "json",
      enabled: true,
    });
    receiver.answer(() => 200);
    await updateSettings(admin, { flappingThresholdPerHour: 2 });
    const t0 = new Date(Date.now() + 2 * 3_600_000);
    await db().cluster.create({
      data: {
        id: "c-blip",
        name: "blip",
        status: "Ready",
        phase: "Active",
        lastHeartbeatAt: at(t0, -120_000),
        apiServerHealth: "ok",
      },
    });
    // Three blips of 10 s, a minute apart: six status changes within the hour.
    for (let i = 0; i < 3; i++) {
      const down = at(t0, i * 120_000);
      await db().cluster.update({ where: { id: "c-blip" }, data: { lastHeartbeatAt: at(down, -120_000) } });
      assert.equal(await sweepStatuses(down), 1);
      await db().cluster.update({ where: { id: "c-blip" }, data: { lastHeartbeatAt: at(down, 10_000) } });
      assert.equal(await sweepStatuses(at(down, 10_000)), 1);
    }
    await deliverDueWebhooks({ now: at(t0, 600_000) });
    const types = receiver.payloads().map((p) => p.type);
    assert.deepEqual(types, ["cluster.flapping"], "neither blip's NotReady nor Ready, and one flapping");
    const flapping = receiver.payloads()[0]!;
    assert.equal(flapping.data.thresholdPerHour, 2);
    assert.ok(Number(flapping.data.changesLastHour) > 2);
    const log = await listDeliveries(sub.id, 20);
    assert.equal(log.filter((d) => d.eventType === "cluster.notReady" && d.state === "suppressed").length, 3);
    assert.equal(log.filter((d) => d.eventType === "cluster.ready").length, 0);
    receiver.received.splice(0);
    await updateSettings(admin, { flappingThresholdPerHour: 4 });
    await updateWebhook(admin, sub.id, { enabled: false });
  });

  test("removal, an operator's pause, expiring certificates and registration failures are enqueued (the jobs' once per key)", async () => {
    const sub = await createWebhook(admin, {
      url: receiver.url,
      events: ["cluster.removed", "rollout.paused", "cluster.certificateExpiring", "registration.failureRate"],
      format: "json",
      enabled: true,
    });
    const now = new Date();
    await db().cluster.create({
      data: { id: "c-events", name: "events", phase: "Deregistration", labels: { create: { key: "env", value: "prod" } } },
    });
    await db().certificate.create({
      data: {
        serial: "ab01",
        clusterId: "c-events",
        fingerprint: "sha256:ab01",
        pem: "-",
        notBefore: at(now, -86_400_000),
        notAfter: at(now, 3 * 86_400_000),
      },
    });
    assert.equal(await notifyExpiringCertificates(now), 1);
    assert.equal(await notifyExpiringCertificates(at(now, 60_000)), 0, "once per certificate");
    await db().registrationAttempt.createMany({ data: Array.from({ length: 21 }, () => ({ result: "token_invalid", at: now })) });
    assert.equal(await notifyRegistrationFailures(at(now, 1_000)), 1);
    assert.equal(await notifyRegistrationFailures(at(now, 2_000)), 0, "once an hour");

    const rollout = await db().rollout.create({ data: { name: "v2", targetVersion: "0.2.0", stages: "[]", state: "Running" } });
    await pauseRollout(admin, rollout.id, "looks wrong");
    // Removal is written by changePhase in the remover's transaction, after the delete, as deregistration does.
    await inTransaction(async (tx, afterCommit) => {
      await tx.cluster.delete({ where: { id: "c-events" } });
      await changePhase(tx, afterCommit, {
        clusterId: "c-events",
        clusterName: "events",
        from: "Deregistration",
        to: "Removed",
        reason: "decommissioned",
        at: now,
      });
    });

    receiver.answer(() => 200);
    await deliverDueWebhooks({ now: at(now, 5_000) });
    // The cluster's removal waits for its certificate warning, enqueued first: one pass each.
    await deliverDueWebhooks({ now: at(now, 6_000) });
    const byType = new Map(receiver.payloads().map((p) => [p.type, p]));
    assert.deepEqual([...byType.keys()].sort(), [
      "cluster.certificateExpiring",
      "cluster.removed",
      "registration.failureRate",
      "rollout.paused",
    ]);
    // Its labels went with it.
    const { url, ...removed } = byType.get("cluster.removed")!.cluster!;
    assert.deepEqual(removed, { id: "c-events", name: "events", labels: {}, owner: null, notes: null });
    assert.match(url!, /^http:\/\/[^/]+\/clusters\/c-events$/, "a link back to the cluster's page");
    assert.deepEqual(byType.get("cluster.removed")?.data, { from: "Deregistration", reason: "decommissioned" });
    assert.deepEqual(byType.get("cluster.certificateExpiring")?.cluster?.labels, { env: "prod" });
    assert.equal(byType.get("cluster.certificateExpiring")?.data.serial, "ab01");
    assert.equal(byType.get("registration.failureRate")?.data.failures, 21);
    assert.deepEqual(byType.get("rollout.paused")?.data, {
      rolloutId: rollout.id,
      rolloutName: "v2",
      reason: "looks wrong",
      by: admin.label,
    });
    receiver.received.splice(0);

    // The log is bounded: finished rows beyond the newest DELIVERY_LOG_ROWS per subscription go, pending ones stay.
    await db().webhookDelivery.createMany({
      data: Array.from({ length: DELIVERY_LOG_ROWS + 5 }, (_, i) => ({
        id: `bulk-${i}`,
        subscriptionId: sub.id,
        eventType: "webhook.test",
        payload: "{}",
        state: "delivered",
        nextAttemptAt: now,
        createdAt: now,
      })),
    });
    await pruneWebhookDeliveries(now);
    assert.equal(
      await db().webhookDelivery.count({ where: { subscriptionId: sub.id, state: { not: "pending" } } }),
      DELIVERY_LOG_ROWS,
    );
    await updateWebhook(admin, sub.id, { enabled: false });
  });

  test("https targets go through HTTPS_PROXY, tunnelled to the checked address, unless NO_PROXY names the host", async () => {
    const proxied = await createWebhook(admin, {
      url: "https://localhost:9/hook",
      events: ["cluster.removed"],
      format: "json",
      enabled: true,
    });
    await sendTestWebhook(admin, proxied.id);
    await deliverDueWebhooks({ random: fixedJitter });
    let [log] = await listDeliveries(proxied.id, 1);
    assert.match(log?.lastError ?? "", /the proxy \S+ refused CONNECT \S+ with HTTP 403/);
    // The tunnel is asked for the address that was checked, not for the name (no second lookup).
    assert.equal(connects.length, 1);
    assert.match(connects[0]!, /^(127\.0\.0\.1|\[::1\]):9$/);
    await updateWebhook(admin, proxied.id, { enabled: false });

    const direct = await createWebhook(admin, {
      url: "https://127.0.0.1:9/hook",
      events: ["cluster.removed"],
      format: "json",
      enabled: true,
    });
    await sendTestWebhook(admin, direct.id);
    await deliverDueWebhooks({ random: fixedJitter });
    [log] = await listDeliveries(direct.id, 1);
    assert.equal(log?.state, "pending");
    assert.doesNotMatch(log?.lastError ?? "", /proxy/);
    assert.equal(connects.length, 1, "NO_PROXY: no tunnel");
    await updateWebhook(admin, direct.id, { enabled: false });
  });

  test("private, loopback and link-local targets are refused unless allowed, at subscribe and at delivery time", async () => {
    const allowed = await createWebhook(admin, { url: receiver.url, events: ["cluster.removed"], format: "json", enabled: true });
    await updateSettings(admin, { webhookAllowPrivateTargets: false });
    try {
      for (const url of [
        receiver.url,
        "http://10.0.0.1/x",
        "http://169.254.169.254/latest",
        "http://[::1]:9/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost/",
      ]) {
        await assert.rejects(
          createWebhook(admin, { url, events: ["cluster.removed"], format: "json", enabled: true }),
          (err: unknown) => err instanceof ApiError && err.code === "target_not_allowed" && err.status === 422,
          url,
        );
      }
      // Subscribed while allowed: delivery checks again and sends nothing.
      await sendTestWebhook(admin, allowed.id);
      await deliverDueWebhooks({ random: fixedJitter });
      const [log] = await listDeliveries(allowed.id, 1);
      assert.equal(log?.state, "pending");
      assert.equal(log?.lastStatusCode, null);
      assert.match(log?.lastError ?? "", /127\.0\.0\.1, loopback/);
      assert.equal(receiver.received.length, 0);
    } finally {
      await updateSettings(admin, { webhookAllowPrivateTargets: true });
    }
  });
});

describe(`webhooks through the real server on ${engine}`, () => {
  let server: FleetServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    server = await startFleetServer();
  });
  after(async () => {
    await server?.stop();
    await receiver?.close();
  });

  test("the admin API: a private target refused with 422, created with the secret once, never again, audited", async () => {
    const body = { url: receiver.url, events: ["cluster.removed", "rollout.paused"] };
    const refused = await server.api("POST", "/api/v1/webhooks", body);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.error, "target_not_allowed");
    assert.equal((await server.api("PATCH", "/api/v1/settings", { webhookAllowPrivateTargets: true })).status, 200);
    const bad = await server.api("POST", "/api/v1/webhooks", { url: "ftp://example.com/", events: ["cluster.removed"] });
    assert.equal(bad.status, 400);
    const created = await server.api("POST", "/api/v1/webhooks", body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.secret, /^whsec_/);
    assert.equal(created.headers["cache-control"], "no-store");
    const list = await server.api("GET", "/api/v1/webhooks");
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
    assert.ok(!JSON.stringify(list.body).includes(created.body.secret), "the list never shows the secret");
    assert.ok(!server.logs().includes(created.body.secret), "nor does the log");
    const audit = await server.api("GET", "/api/v1/audit?action=webhook.create");
    assert.equal(audit.status, 200, JSON.stringify(audit.body));
    assert.ok(JSON.stringify(audit.body).includes(created.body.id));
    // Rotation: a new secret, shown in this answer only, signs from the next delivery on.
    const rotated = await server.api("POST", `/api/v1/webhooks/${created.body.id}/rotate-secret`);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, created.body.secret);
    receiver.received.splice(0);
    assert.equal((await server.api("POST", `/api/v1/webhooks/${created.body.id}/test`)).status, 201);
    const [signed] = await until(
      "the test delivery after the rotation",
      async () => receiver.received.length > 0 && receiver.received,
    );
    assert.ok(signatureValid(signed!, rotated.body.secret), "signed with the new secret");
    assert.ok(!signatureValid(signed!, created.body.secret), "not the old one");
    const rotation = await server.api("GET", "/api/v1/audit?action=webhook.rotateSecret");
    assert.ok(JSON.stringify(rotation.body).includes(created.body.id));
    assert.ok(!JSON.stringify(rotation.body).includes(rotated.body.secret), "the audit log never holds the secret");
    const deleted = await server.api("DELETE", `/api/v1/webhooks/${created.body.id}`);
    assert.equal(deleted.status, 204);
    assert.equal((await server.api("GET", `/api/v1/webhooks/${created.body.id}`)).status, 404);
    const doc = await server.api("GET", "/api/openapi");
    assert.equal(doc.status, 200);
    const schemas = (doc.body as { components: { schemas: Record<string, { properties?: object }> } }).components.schemas;
    assert.deepEqual(Object.keys(schemas.WebhookPayload?.properties ?? {}), ["id", "type", "occurredAt", "cluster", "data"]);
    assert.ok(JSON.stringify(doc.body).includes("/api/v1/webhooks/{id}/deliveries"));
  });

  test("undelivered rows survive a crash: after the restart every delivery arrives, under its one id", async () => {
    const created = await server.api("POST", "/api/v1/webhooks", { url: receiver.url, events: ["cluster.removed"] });
    assert.equal(created.status, 201);
    const id = created.body.id as string;
    const secret = created.body.secret as string;
    receiver.received.splice(0);
    receiver.answer(() => 500);
    const queued: string[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await server.api("POST", `/api/v1/webhooks/${id}/test`);
      assert.equal(t.status, 201, JSON.stringify(t.body));
      queued.push(t.body.id);
    }
    await until("each delivery attempted once (and refused with 500)", async () =>
      queued.every((q) => receiver.received.some((r) => r.headers["x-fleet-delivery"] === q)),
    );
    await server.kill("SIGKILL");
    receiver.answer(() => 200);
    await server.restart();
    const log = await until(
      "every delivery delivered after the restart",
      async () => {
        const res = await server.api("GET", `/api/v1/webhooks/${id}/deliveries`);
        const items = res.body.items as { id: string; state: string }[];
        return items.length === 3 && items.every((d) => d.state === "delivered") && items;
      },
      90_000,
    );
    assert.deepEqual(log.map((d) => d.id).sort(), [...queued].sort());
    await new Promise((r) => setTimeout(r, 2_500)); // nothing more comes
    // At least once, never under a new id: a repeat is recognisable by its X-Fleet-Delivery.
    const ids = new Set(receiver.received.map((r) => r.headers["x-fleet-delivery"]));
    assert.deepEqual([...ids].sort(), [...queued].sort(), "every request carries one of the queued ids");
    for (const q of queued) {
      const got = receiver.received.filter((r) => r.headers["x-fleet-delivery"] === q);
      assert.equal(got[0]?.status, 500, "refused before the crash");
      assert.equal(got.filter((r) => r.status === 200).length, 1, "accepted once, after the restart");
      assert.ok(got.every((r) => (JSON.parse(r.body) as WebhookPayload).id === q && signatureValid(r, secret)));
    }
  });
});
