// The enrollment evaluator (lib/server/lifecycle/enrollment.ts) in this process on the engine
// TEST_ENGINE picks: a pass over more clusters than one page writes each checklist once, moves
// complete ones to Enrolled with one event each, a second pass writes nothing, a cluster whose
// facts change is rewritten (its unchanged items keep their `since`), a checklist another
// instance stored is honoured, a removed cluster is no trouble, and time alone (a heartbeat going
// stale) is noticed although no row changed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { evaluateEnrollment, parseStored } from "@/lib/server/lifecycle/enrollment";
import { appDatabase } from "../helpers/app-database";

appDatabase();

const COUNT = 1_203; // more than two pages of 500

test("the evaluator writes each change once, in multi-row batches, and nothing when nothing changed", async () => {
  const now = new Date();
  const fresh = new Date(now.getTime() - 1_000);
  const { requiredLabels } = await getSettings();
  await db().clusterEvent.deleteMany({});
  await db().cluster.deleteMany({});
  await db().clusterGroup.deleteMany({});
  await db().clusterGroup.create({ data: { name: "evaluator-fleet", selector: "fleet=ev" } });
  const ids = Array.from({ length: COUNT }, (_, i) => `cl_ev${String(i).padStart(5, "0")}`);
  // Even clusters have everything the checklist asks for; odd ones never heartbeated.
  for (let from = 0; from < COUNT; from += 500) {
    const slice = ids.slice(from, from + 500);
    await db().cluster.createMany({
      data: slice.map((id, k) => {
        const complete = (from + k) % 2 === 0;
        return {
          id,
          name: id.replace("cl_", "").replace("_", "-"),
          phase: complete ? "Active" : "Registration",
          registeredAt: fresh,
          lastHeartbeatAt: complete ? fresh : null,
          apiServerHealth: complete ? "ok" : null,
          logsReporting: complete,
          metricsReporting: complete,
        };
      }),
    });
    await db().clusterLabel.createMany({
      data: slice.flatMap((clusterId) => [
        { clusterId, key: "fleet", value: "ev" },
        ...requiredLabels.filter((key) => key !== "fleet").map((key) => ({ clusterId, key, value: "x" })),
      ]),
    });
  }
  const enrolledCount = Math.ceil(COUNT / 2);

  const first = await evaluateEnrollment(now);
  assert.equal(first.total, COUNT);
  assert.equal(first.enrolled, enrolledCount);
  // Every cluster's checklist written, plus one event per newly enrolled cluster.
  assert.equal(first.changed, COUNT + enrolledCount);
  const stored = await db().cluster.findMany({
    select: { id: true, enrollment: true, enrolledAt: true },
    orderBy: { id: "asc" },
  });
  assert.ok(stored.every((c) => c.enrollment));
  assert.equal(stored.filter((c) => c.enrolledAt?.getTime() === now.getTime()).length, enrolledCount);
  const events = await db().clusterEvent.findMany({ where: { kind: "enrollment" } });
  assert.equal(events.length, enrolledCount);
  assert.ok(
    events.every((e) => e.fromValue === "Enrolling" && e.toValue === "Enrolled" && e.reason === "every checklist item passes"),
  );

  const later = new Date(now.getTime() + 2_000);
  const second = await evaluateEnrollment(later);
  assert.equal(second.changed, 0, "a second pass over unchanged facts writes nothing");
  assert.deepEqual([second.total, second.enrolled], [COUNT, enrolledCount], "and counts as the first");

  // A complete cluster stops reporting logs: its checklist is rewritten, it leaves Enrolled with
  // an event, and the items that kept their state keep their `since`.
  const [stopped] = ids;
  await db().cluster.update({ where: { id: stopped }, data: { logsReporting: false } });
  // Another instance stored the same states with other `since` times for a second cluster: honoured as stored.
  const other = ids[2]!;
  const theirs = Object.fromEntries(
    Object.entries(parseStored(stored.find((c) => c.id === other)!.enrollment)).map(([k, v]) => [
      k,
      { ...v, since: "2026-01-01T00:00:00.000Z" },
    ]),
  );
  await db().cluster.update({ where: { id: other }, data: { enrollment: JSON.stringify(theirs) } });
  await db().cluster.delete({ where: { id: ids[4]! } });

  const third = await evaluateEnrollment(new Date(now.getTime() + 4_000));
  assert.equal(third.total, COUNT - 1);
  assert.equal(third.changed, 2, "one checklist rewritten and one event");
  const after = await db().cluster.findUnique({ where: { id: stopped } });
  assert.equal(after!.enrolledAt, null);
  const items = parseStored(after!.enrollment);
  const before = parseStored(stored.find((c) => c.id === stopped)!.enrollment);
  assert.equal(items.logs!.state, "fail");
  assert.notEqual(items.logs!.since, before.logs!.since);
  assert.deepEqual(items.metrics, before.metrics);
  const left = await db().clusterEvent.findMany({ where: { kind: "enrollment", clusterId: stopped }, orderBy: { id: "asc" } });
  assert.deepEqual(
    left.map((e) => [e.fromValue, e.toValue, e.reason]),
    [
      ["Enrolling", "Enrolled", "every checklist item passes"],
      ["Enrolled", "Enrolling", "blocked: logs"],
    ],
  );
  const kept = await db().cluster.findUnique({ where: { id: other } });
  assert.deepEqual(parseStored(kept!.enrollment), theirs);

  // Time alone, nothing written: past the threshold every heartbeat is stale. The complete clusters
  // leave Enrolled (a checklist and an event each), the one already out is rewritten once more.
  const { notReadyThresholdSeconds } = await getSettings();
  const stale = await evaluateEnrollment(new Date(now.getTime() + (notReadyThresholdSeconds + 5) * 1000));
  assert.equal(stale.enrolled, 0);
  assert.equal(stale.changed, 2 * (enrolledCount - 2) + 1);
  const dropped = await db().cluster.findUniqueOrThrow({ where: { id: other } });
  assert.deepEqual([dropped.enrolledAt, parseStored(dropped.enrollment).heartbeat?.state], [null, "fail"]);
});

test("with no group in the fleet group membership is not applicable; the first group makes it apply", async () => {
  const now = new Date();
  const fresh = new Date(now.getTime() - 1_000);
  const { requiredLabels } = await getSettings();
  await db().clusterEvent.deleteMany({});
  await db().cluster.deleteMany({});
  await db().clusterGroup.deleteMany({});
  await db().cluster.create({
    data: {
      id: "cl_nogroup",
      name: "no-group",
      phase: "Active",
      registeredAt: fresh,
      lastHeartbeatAt: fresh,
      apiServerHealth: "ok",
      logsReporting: true,
      metricsReporting: true,
      labels: { create: requiredLabels.map((key) => ({ key, value: "x" })) },
    },
  });
  await evaluateEnrollment(now);
  let c = await db().cluster.findUniqueOrThrow({ where: { id: "cl_nogroup" } });
  assert.ok(c.enrolledAt, "enrolled without any group");
  assert.equal(parseStored(c.enrollment).groups?.state, "pass");

  // A group that does not select it: membership applies, the cluster leaves Enrolled.
  await db().clusterGroup.create({ data: { name: "someone-else", selector: "team=other" } });
  await evaluateEnrollment(new Date(now.getTime() + 1_000));
  c = await db().cluster.findUniqueOrThrow({ where: { id: "cl_nogroup" } });
  assert.equal(c.enrolledAt, null);
  assert.equal(parseStored(c.enrollment).groups?.state, "fail");
  await db().clusterGroup.deleteMany({});
  await db().cluster.deleteMany({});
});
