// Bulk drain-then-deregister's guard and pace on the engine TEST_ENGINE picks: a selection that
// covers the whole fleet (a catch-all filter, or every cluster picked) or includes production
// clusters needs an admin and the typed sentence, and is audited with its guard; an empty filter
// keeps its own refusal; drains start `drainStartsPerMinute` at once and the rest wait in the
// queue, started by the job at their turn as the person who confirmed them, or cancelled.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { bulkDeregistrationSchema, type BulkDeregistrationInput } from "@/lib/contracts/clusters";
import type { Role } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { bulkStartDeregistration } from "@/lib/server/lifecycle/bulk-start-deregistration";
import { cancelDrainBatch, listDrainQueue, startDueDrains } from "@/lib/server/lifecycle/drain-queue";
import { updateSettings } from "@/lib/server/settings/settings";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ADMIN: Actor = { type: "user", id: null, label: "admin@example.com" };
// A real user: a queued drain starts as the person who confirmed it, if they may still drain it.
const OPERATOR: Actor = { type: "user", id: "u-ops", label: "ops@example.com" };

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

const drain = (body: BulkDeregistrationInput, role: Role = "operator") =>
  bulkStartDeregistration({ actor: role === "admin" ? ADMIN : OPERATOR, role }, bulkDeregistrationSchema.parse(body));

const refusedAs = (code: string, status: number) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code, err.message);
  assert.equal(err.status, status);
  return true;
};

const started = async () =>
  (await db().deregistration.findMany({ select: { clusterId: true }, orderBy: { clusterId: "asc" } })).map((d) => d.clusterId);

describe(`the bulk drain's guard and pace on ${testEngine()}`, () => {
  before(async () => {
    await db().user.create({ data: { id: "u-ops", email: OPERATOR.label, role: "operator" } });
  });

  test("a fleet of one: a filter matching it is left to the confirmed count", async () => {
    await cluster("cl_solo", { env: "qa" });
    const dry = await drain({ filter: { selector: "env" }, dryRun: true });
    assert.equal(dry.matched, 1);
    assert.equal(dry.guard, null);
  });

  test("the whole fleet, by any spelling, needs an admin and the sentence; it is audited with its guard", async () => {
    await cluster("cl_a", { env: "qa", region: "eu" });
    await cluster("cl_b", { env: "dev", region: "us" });
    // The fleet is now cl_solo, cl_a and cl_b, none in production: every spelling of "all of them" is guarded.
    for (const body of [
      { filter: { selector: "!no-such-label" } },
      { filter: { q: "n-" } },
      { ids: ["cl_solo", "cl_a", "cl_b"] },
    ]) {
      const dry = await drain({ ...body, dryRun: true });
      assert.deepEqual(
        dry.guard,
        { reasons: ["wholeFleet"], production: 0, fleet: 3, phrase: "drain all 3 clusters", confirmable: false },
        JSON.stringify(body),
      );
      await assert.rejects(
        drain({ ...body, reason: "all of it", confirmCount: 3, confirmPhrase: "drain all 3 clusters" }),
        refusedAs("admin_required", 403),
        "an operator cannot, whatever they type",
      );
    }
    await assert.rejects(
      drain({ filter: {}, dryRun: true }),
      refusedAs("filter_required", 400),
      "an empty filter keeps its own code",
    );
    const all = { filter: { selector: "env" }, reason: "decommissioning the lab" };
    await assert.rejects(
      drain({ ...all, confirmCount: 3 }, "admin"),
      refusedAs("confirmation_mismatch", 400),
      "the count alone is not enough",
    );
    await assert.rejects(
      drain({ ...all, confirmCount: 3, confirmPhrase: "drain 3 clusters" }, "admin"),
      refusedAs("confirmation_mismatch", 400),
    );
    await assert.rejects(
      drain({ ...all, confirmCount: 2, confirmPhrase: "drain all 3 clusters" }, "admin"),
      refusedAs("count_changed", 409),
    );
    assert.deepEqual(await started(), [], "nothing started by a refusal");

    // Case and spacing do not matter; the words do.
    const done = await drain({ ...all, confirmCount: 3, confirmPhrase: "  Drain all 3  clusters " }, "admin");
    assert.equal(done.started, 3);
    assert.deepEqual(await started(), ["cl_a", "cl_b", "cl_solo"]);
    const audit = await db().auditLog.findFirstOrThrow({ where: { action: "cluster.deregistration.bulk_start" } });
    assert.equal(audit.actorLabel, ADMIN.label);
    assert.deepEqual((JSON.parse(audit.details) as { guard: unknown }).guard, {
      reasons: ["wholeFleet"],
      production: 0,
      fleet: 3,
    });
  });

  test("production clusters, by the configured selector, are guarded in any selection; without a selector none is", async () => {
    await cluster("cl_p1", { env: "prod" });
    await cluster("cl_p2", { env: "production" });
    await cluster("cl_q1", { env: "qa" });
    const dry = await drain({ ids: ["cl_p1", "cl_q1"], dryRun: true });
    assert.deepEqual(dry.guard, {
      reasons: ["production"],
      production: 1,
      fleet: 6,
      phrase: "drain 2 clusters, 1 in production",
      confirmable: false,
    });
    const body = { ids: ["cl_p1", "cl_q1"], reason: "moving region", confirmCount: 2, confirmPhrase: dry.guard!.phrase };
    await assert.rejects(drain(body), refusedAs("admin_required", 403));
    assert.equal(
      (await drain({ ids: ["cl_q1"], dryRun: true })).guard,
      null,
      "a selection without production needs no more than the count",
    );

    await updateSettings(ADMIN, { productionSelector: "tier=critical" });
    assert.equal((await drain({ ids: ["cl_p1", "cl_q1"], dryRun: true })).guard, null, "the selector is the setting's");
    await updateSettings(ADMIN, { productionSelector: null });
    assert.equal((await drain({ ids: ["cl_p1", "cl_p2"], dryRun: true })).guard, null);
    await updateSettings(ADMIN, { productionSelector: "env in (prod,production)" });
  });

  test("drains start a few at once; the rest wait their turn, start as their confirmer, or are cancelled", async () => {
    for (const n of [1, 2, 3, 4, 5]) await cluster(`cl_r${n}`, { env: "dev", pace: "yes" });
    await updateSettings(ADMIN, { drainStartsPerMinute: 2 });
    const before = new Date();
    const dry = await drain({ filter: { selector: "pace=yes" }, dryRun: true });
    assert.equal(dry.startsPerMinute, 2);
    const done = await drain({ filter: { selector: "pace=yes" }, reason: "pace", confirmCount: 5 });
    assert.equal(done.started, 2);
    assert.equal(done.queued, 3);
    const turns = done.results.map((r) => (r.startsAt ? Math.round((Date.parse(r.startsAt) - before.getTime()) / 60_000) : 0));
    assert.deepEqual(turns, [0, 0, 1, 1, 2], "two now, then two a minute");
    const queue = await listDrainQueue();
    assert.equal(queue.batches.length, 1);
    assert.equal(queue.batches[0]!.queued, 3);
    assert.equal(queue.batches[0]!.by, OPERATOR.label);

    // A minute on, the job starts the two whose turn it is, as the operator who confirmed them.
    assert.equal(await startDueDrains(new Date(before.getTime() + 61_000)), 2);
    const pace = (await started()).filter((id) => id.startsWith("cl_r"));
    assert.deepEqual(pace, ["cl_r1", "cl_r2", "cl_r3", "cl_r4"]);
    const queuedStart = await db().auditLog.findFirstOrThrow({
      where: { action: "deregistration.start", targetId: "cl_r3" },
    });
    assert.equal(queuedStart.actorLabel, OPERATOR.label);

    // The last is cancelled before its turn: it never starts.
    assert.deepEqual(await cancelDrainBatch(ADMIN, done.batchId!), { cancelled: 1 });
    await assert.rejects(cancelDrainBatch(ADMIN, done.batchId!), refusedAs("not_found", 404));
    assert.equal(await startDueDrains(new Date(before.getTime() + 10 * 60_000)), 0);
    assert.equal((await started()).includes("cl_r5"), false);
    assert.equal(await db().auditLog.count({ where: { action: "cluster.deregistration.queue_cancel" } }), 1);
  });
});
