// A subscription's delivery log filtered by state, as the console's "State" filter asks for it:
// the failed deliveries are found among many delivered ones, newest first.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deliveriesQuerySchema } from "@/lib/contracts/webhooks";
import { webhookCreateSchema } from "@/lib/domain/webhooks";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { updateSettings } from "@/lib/server/settings/settings";
import { createWebhook, listDeliveries } from "@/lib/server/webhooks/subscriptions";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

describe(`the webhook delivery log on ${testEngine()}`, () => {
  test("filters by state, newest first; an unknown state is refused by the query's contract", async () => {
    await updateSettings(SYSTEM_ACTOR, { webhookAllowPrivateTargets: true });
    const hook = await createWebhook(
      SYSTEM_ACTOR,
      webhookCreateSchema.parse({ url: "http://127.0.0.1:9/log", events: ["cluster.notReady"] }),
    );
    const states = ["failed", "delivered", "delivered", "suppressed", "failed", "delivered", "pending"];
    for (const [i, state] of states.entries())
      await db().webhookDelivery.create({
        data: {
          id: `dl_log_${i}`,
          subscriptionId: hook.id,
          eventType: "cluster.notReady",
          payload: "{}",
          state,
          attempts: state === "pending" ? 0 : 1,
          nextAttemptAt: new Date(),
        },
      });
    const ids = async (state?: "failed" | "delivered" | "pending" | "suppressed") =>
      (await listDeliveries(hook.id, 50, state)).map((d) => d.id);

    assert.deepEqual(await ids("failed"), ["dl_log_4", "dl_log_0"]);
    assert.deepEqual(await ids("suppressed"), ["dl_log_3"]);
    assert.equal((await ids()).length, states.length);
    assert.equal(deliveriesQuerySchema.safeParse({ state: "lost" }).success, false);
    assert.equal(deliveriesQuerySchema.parse({ state: "failed" }).state, "failed");
  });
});
