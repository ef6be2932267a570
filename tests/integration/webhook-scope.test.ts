// Webhook subscriptions scoped by a label selector, on the engine TEST_ENGINE selects: a scoped
// subscription is sent only the events of clusters (or registration requests) its selector matches
// when the event is enqueued (a removal included, whose labels are gone by then), events that
// carry no labels go only to unscoped subscriptions, and setting or clearing the scope is audited.
// The delivery job posts to loopback receivers, so what is checked is what each receiver got.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mintTokenSchema } from "@/lib/domain/tokens";
import { webhookCreateSchema, webhookPatchSchema, type WebhookPayload } from "@/lib/domain/webhooks";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { actOnDeregistration } from "@/lib/server/lifecycle/deregistration";
import { recordPendingRequest } from "@/lib/server/registration-requests/record-request";
import { updateSettings } from "@/lib/server/settings/settings";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { deliverDueWebhooks } from "@/lib/server/webhooks/deliver-webhooks";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import { createWebhook, listDeliveries, sendTestWebhook, updateWebhook } from "@/lib/server/webhooks/subscriptions";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";
import { startReceiver } from "../helpers/webhook-receiver";
import { notReady, queued, seedCluster } from "../helpers/webhook-outbox";

const engine = testEngine();
appDatabase();

const EVENTS = ["cluster.notReady", "cluster.removed", "rollout.paused"];

describe(`webhook subscriptions scoped by a label selector on ${engine}`, () => {
  test("a scoped subscription gets only its clusters' events; events without labels go only to unscoped ones", async () => {
    // Loopback receivers that never run: no delivery job runs in this test.
    await updateSettings(SYSTEM_ACTOR, { webhookAllowPrivateTargets: true });
    await seedCluster("cl_prod_eu", { env: "prod", region: "eu" });
    await seedCluster("cl_dev", { env: "dev", region: "eu" });
    const scoped = await createWebhook(
      SYSTEM_ACTOR,
      webhookCreateSchema.parse({ url: "http://127.0.0.1:9/scoped", events: EVENTS, selector: " env=prod,region in (eu,us) " }),
    );
    const everything = await createWebhook(
      SYSTEM_ACTOR,
      webhookCreateSchema.parse({ url: "http://127.0.0.1:9/all", events: EVENTS }),
    );
    assert.equal(scoped.selector, "env=prod,region in (eu,us)");
    assert.equal(everything.selector, null);

    await notReady("cl_prod_eu");
    await notReady("cl_dev");
    await inTransaction((tx) =>
      enqueueWebhookEvent(tx, { type: "rollout.paused", data: { rolloutName: "r1" }, occurredAt: new Date() }),
    );
    assert.deepEqual(await queued(scoped.id), ["cluster.notReady:cl_prod_eu"]);
    assert.deepEqual(await queued(everything.id), [
      "cluster.notReady:cl_prod_eu",
      "cluster.notReady:cl_dev",
      "rollout.paused:fleet",
    ]);

    // The labels at enqueue time decide: relabelled into the scope, the next event goes.
    await db().clusterLabel.update({
      where: { clusterId_key: { clusterId: "cl_dev", key: "env" } },
      data: { value: "prod" },
    });
    await notReady("cl_dev");
    assert.deepEqual((await queued(scoped.id)).at(-1), "cluster.notReady:cl_dev");

    // The delivery log names the cluster (as the event recorded it) and "fleet" events have none.
    const log = await listDeliveries(scoped.id, 10);
    assert.deepEqual(log[0]!.cluster, { id: "cl_dev", name: "cl_dev-name", removed: false });
    const all = await listDeliveries(everything.id, 10);
    assert.equal(all.find((d) => d.eventType === "rollout.paused")!.cluster, null);
  });

  test("a removal reaches a scoped subscription by the labels the cluster had", async () => {
    await seedCluster("cl_gone", { env: "stage" });
    await seedCluster("cl_gone_other", { env: "qa" });
    const scoped = await createWebhook(
      SYSTEM_ACTOR,
      webhookCreateSchema.parse({ url: "http://127.0.0.1:9/stage", events: ["cluster.removed"], selector: "env=stage" }),
    );
    for (const id of ["cl_gone", "cl_gone_other"]) {
      await actOnDeregistration(SYSTEM_ACTOR, id, { action: "start" });
      await actOnDeregistration(SYSTEM_ACTOR, id, { action: "confirm-workloads", force: true, reason: "test" });
      await actOnDeregistration(SYSTEM_ACTOR, id, { action: "disconnect" });
      await db().directive.updateMany({ where: { clusterId: id, type: "disconnect" }, data: { ackedAt: new Date() } });
      await actOnDeregistration(SYSTEM_ACTOR, id, { action: "remove", reason: "test" });
    }
    assert.deepEqual(await queued(scoped.id), ["cluster.removed:cl_gone"]);
    const [delivery] = await db().webhookDelivery.findMany({ where: { subscriptionId: scoped.id } });
    // The cluster's row is gone: its labels come from the event, and the link still names its page.
    const { url, ...cluster } = JSON.parse(delivery!.payload).cluster;
    assert.deepEqual(cluster, { id: "cl_gone", name: "cl_gone-name", labels: { env: "stage" }, owner: null, notes: null });
    assert.match(url, /\/clusters\/cl_gone$/);
    const [row] = await listDeliveries(scoped.id, 10);
    assert.equal(row!.cluster?.removed, true);
  });

  test("a registration waiting for approval reaches a scoped subscription only when its labels match, as delivered", async () => {
    // The earlier tests' receivers do not listen: their subscriptions rest while this one delivers.
    await db().webhookSubscription.updateMany({ data: { enabled: false } });
    const receiver = await startReceiver();
    try {
      const events = ["registration.pendingApproval", "rollout.paused", "registration.failureRate"];
      const subscribe = (path: string, selector?: string) =>
        createWebhook(SYSTEM_ACTOR, webhookCreateSchema.parse({ url: `${receiver.origin}${path}`, events, selector }));
      const prod = await subscribe("/prod", "env=prod");
      await subscribe("/all");
      // A selector that any label set satisfies still needs labels to be shown in scope.
      await subscribe("/labelled", "!no-such-label");

      const token = await mintToken(
        SYSTEM_ACTOR,
        mintTokenSchema.parse({ name: "approval scope", maxClusters: 5, requireApproval: true }),
      );
      const ask = (name: string, labels: Record<string, string>) =>
        recordPendingRequest({
          req: {
            name,
            apiServerUrl: `https://api.${name}.example:6443`,
            caFingerprint: `sha256:${"c".repeat(64)}`,
            agentVersion: "1.4.0",
            labels,
            csr: "-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n",
          },
          token: { id: token.id, name: token.name },
          keyHash: `key-of-${name}`,
          labels,
          sourceAddress: "203.0.113.7",
          now: new Date(),
        });
      await ask("prod-a", { env: "prod", team: "a" });
      await ask("dev-b", { env: "dev" });
      await inTransaction((tx) =>
        enqueueWebhookEvent(tx, { type: "rollout.paused", data: { rolloutName: "r2" }, occurredAt: new Date() }),
      );
      // A test event is asked for by name: it reaches a scoped subscription whatever its scope.
      await sendTestWebhook(SYSTEM_ACTOR, prod.id);

      while ((await deliverDueWebhooks()) > 0);
      const got = (path: string) =>
        receiver.received
          .filter((r) => r.path === path)
          .map((r) => JSON.parse(r.body) as WebhookPayload)
          .map((p) => `${p.type}:${String(p.data.name ?? p.data.rolloutName ?? "")}`)
          .sort();
      assert.deepEqual(got("/prod"), ["registration.pendingApproval:prod-a", "webhook.test:"]);
      assert.deepEqual(got("/all"), [
        "registration.pendingApproval:dev-b",
        "registration.pendingApproval:prod-a",
        "rollout.paused:r2",
      ]);
      assert.deepEqual(got("/labelled"), ["registration.pendingApproval:dev-b", "registration.pendingApproval:prod-a"]);
      // The event carries the labels it was scoped by.
      const pending = receiver.received.find((r) => r.path === "/prod" && r.body.includes("pendingApproval"))!;
      assert.deepEqual((JSON.parse(pending.body) as WebhookPayload).data.labels, { env: "prod", team: "a" });
    } finally {
      await receiver.close();
    }
  });

  test("the scope is validated with the groups' parser, editable, and every change is audited", async () => {
    const bad = webhookCreateSchema.safeParse({ url: "http://127.0.0.1:9/x", events: EVENTS, selector: "env in (prod" });
    assert.equal(bad.success, false);
    assert.deepEqual(
      bad.error!.issues.map((i) => i.path.join(".")),
      ["selector"],
    );
    assert.match(bad.error!.issues[0]!.message, /unbalanced/);
    assert.equal(webhookPatchSchema.safeParse({ selector: "a b c" }).success, false);

    const hook = await createWebhook(
      SYSTEM_ACTOR,
      webhookCreateSchema.parse({ url: "http://127.0.0.1:9/edit", events: EVENTS, selector: "env=prod" }),
    );
    const narrowed = await updateWebhook(SYSTEM_ACTOR, hook.id, webhookPatchSchema.parse({ selector: "env=prod,tier=web" }));
    assert.equal(narrowed.selector, "env=prod,tier=web");
    // An empty selector clears the scope: every cluster again.
    const cleared = await updateWebhook(SYSTEM_ACTOR, hook.id, webhookPatchSchema.parse({ selector: "" }));
    assert.equal(cleared.selector, null);

    const audit = await db().auditLog.findMany({ where: { targetType: "webhook", targetId: hook.id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      audit.map((a) => a.action),
      ["webhook.create", "webhook.update", "webhook.update"],
    );
    const details = audit.map((a) => JSON.parse(a.details ?? "{}") as Record<string, unknown>);
    assert.equal(details[0]!.selector, "env=prod");
    assert.deepEqual(details[1]!.changes, { selector: { from: "env=prod", to: "env=prod,tier=web" } });
    assert.deepEqual(details[2]!.changes, { selector: { from: "env=prod,tier=web", to: null } });
  });
});
