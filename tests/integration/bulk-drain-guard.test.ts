// Bulk drain-then-deregister's guard on the engine TEST_ENGINE picks: "all matching" is refused not
// only for an empty filter but for any filter that matches every cluster of the fleet (a selector
// such as `!no-such-label`, or `env` when every cluster has one), dry run included; a filter that
// leaves one cluster out, and a fleet of one, go on to the confirmed count.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bulkDeregistrationSchema, type BulkDeregistrationInput } from "@/lib/contracts/clusters";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { bulkStartDeregistration } from "@/lib/server/lifecycle/bulk-start-deregistration";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ACTOR: Actor = { type: "user", id: null, label: "ops@example.com" };

async function cluster(id: string, labels: Record<string, string>) {
  await db().cluster.create({
    data: {
      id,
      name: `n-${id.slice(3)}`,
      phase: "Active",
      registeredAt: new Date(),
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
    },
  });
}

const drain = (body: BulkDeregistrationInput) => bulkStartDeregistration(ACTOR, bulkDeregistrationSchema.parse(body));

const refusedAs = (code: string) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code, err.message);
  assert.equal(err.status, 400);
  return true;
};

describe(`the bulk drain's whole-fleet guard on ${testEngine()}`, () => {
  test("a fleet of one: a filter matching it is left to the confirmed count", async () => {
    await cluster("cl_solo", { env: "prod" });
    const dry = await drain({ filter: { selector: "env" }, dryRun: true });
    assert.equal(dry.matched, 1);
  });

  test("a filter matching every cluster is refused (filter_matches_fleet), dry run or not; one leaving a cluster out is not", async () => {
    await cluster("cl_a", { env: "prod", region: "eu" });
    await cluster("cl_b", { env: "qa", region: "us" });
    // The fleet is now cl_solo, cl_a and cl_b: every one has env.
    for (const filter of [{ selector: "!no-such-label" }, { selector: "env" }, { selector: "env in (prod,qa)" }, { q: "n-" }]) {
      await assert.rejects(
        drain({ filter, reason: "all of it", confirmCount: 3 }),
        refusedAs("filter_matches_fleet"),
        JSON.stringify(filter),
      );
      await assert.rejects(drain({ filter, dryRun: true }), refusedAs("filter_matches_fleet"), `${JSON.stringify(filter)} dry`);
    }
    await assert.rejects(drain({ filter: {}, dryRun: true }), refusedAs("filter_required"), "an empty filter keeps its own code");

    const narrower = await drain({ filter: { selector: "env=prod" }, dryRun: true });
    assert.equal(narrower.matched, 2);
    const picked = await drain({ ids: ["cl_solo", "cl_a", "cl_b"], dryRun: true });
    assert.equal(picked.matched, 3, "clusters picked one by one are a choice, not a filter");
    assert.equal(await db().deregistration.count(), 0, "nothing started");
  });
});
