// The list's health and enrollment filters (lib/domain/cluster-reason.ts) in SQL
// (lib/server/clusters/cluster-list-sql.ts) on the engine TEST_ENGINE picks: random facts and status
// events from a seeded generator, each filter's SQL answer compared with the TypeScript one; then
// the list service end to end, with the flapping setting changed (and audited) in between.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ENROLLMENT_FILTERS,
  HEALTH_FILTERS,
  matchesEnrollmentFilter,
  matchesHealthFilter,
  type ReasonFacts,
} from "@/lib/domain/cluster-reason";
import { LIFECYCLE_PHASES, clusterStatus } from "@/lib/domain/status";
import { seededRandom } from "@/lib/agent/clock";
import { listClustersQuerySchema } from "@/lib/contracts/clusters";
import { clusterPage } from "@/lib/server/clusters/cluster-list-sql";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { db } from "@/lib/server/db/client";
import { getSettings, updateSettings } from "@/lib/server/settings/settings";
import { enrollmentSummary, evaluateEnrollment } from "@/lib/server/lifecycle/enrollment";
import { CHECKLIST_KEYS, type ChecklistKey } from "@/lib/domain/enrollment";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

type Drawn = ReasonFacts & { id: string; name: string; events: Date[]; enrolledAt: Date | null; statusChangedAt: Date };

function draw(seed: number, count: number, now: Date, thresholdSeconds: number): Drawn[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const edge = now.getTime() - thresholdSeconds * 1000;
  const hourAgo = now.getTime() - 3_600_000;
  const heartbeats: (() => Date | null)[] = [
    () => null,
    () => new Date(edge + 1),
    () => new Date(edge - 1),
    () => new Date(now.getTime()),
    () => new Date(now.getTime() - Math.floor(random() * 3 * thresholdSeconds * 1000)),
  ];
  // Status events around the one-hour edge: some just inside, some just outside.
  const eventTimes: (() => Date)[] = [
    () => new Date(hourAgo + 1000),
    () => new Date(hourAgo - 1000),
    () => new Date(now.getTime() - Math.floor(random() * 7_200_000)),
  ];
  return Array.from({ length: count }, (_, i) => {
    const events = Array.from({ length: Math.floor(random() * 9) }, () => pick(eventTimes)());
    return {
      id: `cl_rsn${String(seed).padStart(3, "0")}${String(i).padStart(5, "0")}`,
      name: `r-${seed}-${String(i).padStart(5, "0")}`,
      phase: pick(LIFECYCLE_PHASES),
      phaseChangedAt: new Date(now.getTime() - Math.floor(random() * 20) * 60_000),
      lastHeartbeatAt: pick(heartbeats)(),
      apiServerHealth: pick([null, "ok", "degraded", "down"]),
      enrolledAt: random() < 0.5 ? null : new Date(now.getTime() - 60_000),
      // a few equal times, so the id has to break ties
      statusChangedAt: new Date(now.getTime() - Math.floor(random() * 20) * 60_000),
      labels: {},
      events,
      statusChangesLastHour: events.filter((at) => at.getTime() >= hourAgo).length,
    };
  });
}

async function seed(clusters: Drawn[]) {
  await db().clusterEvent.deleteMany({});
  await db().cluster.deleteMany({});
  await db().cluster.createMany({
    data: clusters.map((c) => ({
      id: c.id,
      name: c.name,
      phase: c.phase,
      lastHeartbeatAt: c.lastHeartbeatAt,
      apiServerHealth: c.apiServerHealth,
      enrolledAt: c.enrolledAt,
      statusChangedAt: c.statusChangedAt,
    })),
  });
  const events = clusters.flatMap((c) =>
    c.events.map((at) => ({
      clusterId: c.id,
      clusterName: c.name,
      kind: "status",
      fromValue: "Ready",
      toValue: "NotReady",
      reason: "test",
      at,
    })),
  );
  // Events of another kind never count as status changes.
  const others = clusters.slice(0, 20).flatMap((c) =>
    Array.from({ length: 6 }, () => ({
      clusterId: c.id,
      clusterName: c.name,
      kind: "phase",
      toValue: "Active",
      reason: "test",
      at: new Date(),
    })),
  );
  await db().clusterEvent.createMany({ data: [...events, ...others] });
}

const page = { sort: "name" as const, order: "asc" as const, offset: 0, limit: 500 };

/** The order a time sort must give: by the time, then the id; clusters without one last, by id. */
function timeOrder(clusters: Drawn[], time: (c: Drawn) => Date | null, order: "asc" | "desc"): string[] {
  const byId = (a: Drawn, b: Drawn) => (a.id < b.id ? -1 : 1);
  const timed = clusters.filter((c) => time(c) !== null);
  const untimed = clusters.filter((c) => time(c) === null).sort(byId);
  timed.sort((a, b) => {
    const d = time(a)!.getTime() - time(b)!.getTime();
    return d === 0 ? byId(a, b) : order === "asc" ? d : -d;
  });
  return [...timed, ...untimed].map((c) => c.id);
}

describe(`health and enrollment filters in SQL agree with TypeScript on ${testEngine()}`, () => {
  for (const { seed: s, thresholdSeconds, flapping } of [
    { seed: 1, thresholdSeconds: 60, flapping: 4 },
    { seed: 2, thresholdSeconds: 30, flapping: 1 },
    { seed: 3, thresholdSeconds: 600, flapping: 7 },
  ]) {
    test(`seed ${s}, threshold ${thresholdSeconds}s, flapping > ${flapping}/h`, async () => {
      const now = new Date(Date.UTC(2026, 10, 30, 12, 0, 0, 321 + s));
      const clusters = draw(s, 300, now, thresholdSeconds);
      await seed(clusters);
      const rules = {
        notReadyThresholdSeconds: thresholdSeconds,
        flappingThresholdPerHour: flapping,
        provisioningThresholdMinutes: 10,
        requiredLabels: [],
      };
      for (const health of HEALTH_FILTERS) {
        const got = new Set((await clusterPage({ health }, page, now, thresholdSeconds, flapping)).ids);
        for (const c of clusters) {
          const want = matchesHealthFilter(health, c, rules, now);
          assert.equal(got.has(c.id), want, `seed ${s}, health=${health}: ${JSON.stringify(c)}`);
        }
      }
      for (const enrollment of ENROLLMENT_FILTERS) {
        for (const health of HEALTH_FILTERS) {
          const got = new Set((await clusterPage({ health, enrollment }, page, now, thresholdSeconds, flapping)).ids);
          const want = clusters.filter(
            (c) => matchesEnrollmentFilter(enrollment, c) && matchesHealthFilter(health, c, rules, now),
          );
          assert.deepEqual([...got].sort(), want.map((c) => c.id).sort(), `seed ${s}, ${enrollment} + ${health}`);
        }
      }
      // "NotReady since" and "Last seen": NotReady (or heard-from) clusters by the time, the others
      // after them in either direction, the same on both engines.
      const notReadySince = (c: Drawn) => (clusterStatus(c, now, thresholdSeconds) === "NotReady" ? c.statusChangedAt : null);
      for (const order of ["asc", "desc"] as const) {
        const since = await clusterPage({}, { ...page, sort: "notReadySince", order }, now, thresholdSeconds, flapping);
        assert.deepEqual(since.ids, timeOrder(clusters, notReadySince, order), `seed ${s}, notReadySince ${order}`);
        const seen = await clusterPage({}, { ...page, sort: "lastHeartbeatAt", order }, now, thresholdSeconds, flapping);
        assert.deepEqual(
          seen.ids,
          timeOrder(clusters, (c) => c.lastHeartbeatAt, order),
          `seed ${s}, lastHeartbeatAt ${order}`,
        );
      }
    });
  }
});

describe(`the cluster list's reasons and filters on ${testEngine()}`, () => {
  test("flapping follows the setting (validated and audited), and every row says why", async () => {
    const now = Date.now();
    const fresh = new Date(now - 1000);
    await db().clusterEvent.deleteMany({});
    await db().cluster.deleteMany({});
    await db().cluster.createMany({
      data: [
        { id: "cl_fl_a", name: "a-flapping", phase: "Active", lastHeartbeatAt: fresh, apiServerHealth: "ok", enrolledAt: fresh },
        { id: "cl_fl_b", name: "b-quiet", phase: "Active", lastHeartbeatAt: fresh, apiServerHealth: "ok", enrolledAt: fresh },
        { id: "cl_fl_c", name: "c-stale", phase: "Active", lastHeartbeatAt: new Date(now - 3_600_000), apiServerHealth: "ok" },
        {
          id: "cl_fl_d",
          name: "d-degraded",
          phase: "Active",
          lastHeartbeatAt: fresh,
          apiServerHealth: "degraded",
          enrolledAt: fresh,
        },
        { id: "cl_fl_e", name: "e-pending", phase: "Registration" },
      ],
    });
    const { requiredLabels } = await getSettings();
    for (const id of ["cl_fl_a", "cl_fl_b", "cl_fl_d"])
      await db().clusterLabel.createMany({ data: requiredLabels.map((key) => ({ clusterId: id, key, value: "x" })) });
    const status = (clusterId: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        clusterId,
        clusterName: clusterId,
        kind: "status",
        fromValue: i % 2 ? "NotReady" : "Ready",
        toValue: i % 2 ? "Ready" : "NotReady",
        reason: "test",
        at: new Date(now - (i + 1) * 60_000),
      }));
    await db().clusterEvent.createMany({ data: [...status("cl_fl_a", 3), ...status("cl_fl_b", 1)] });

    const list = (q: Record<string, string>) => listClusters(listClustersQuerySchema.parse(q));
    const names = async (q: Record<string, string>) => (await list(q)).items.map((c) => c.name);

    const actor = { type: "user" as const, id: null, label: "reason-test" };
    await updateSettings(actor, { flappingThresholdPerHour: 4 });
    assert.deepEqual(await names({ health: "flapping" }), []);
    await updateSettings(actor, { flappingThresholdPerHour: 2 });
    assert.deepEqual(await names({ health: "flapping" }), ["a-flapping"]);
    const audit = await db().auditLog.findFirst({ where: { action: "settings.update" }, orderBy: { at: "desc" } });
    assert.match(audit?.details ?? "", /flappingThresholdPerHour/);

    assert.deepEqual(await names({ health: "degraded" }), ["d-degraded"]);
    assert.deepEqual(await names({ health: "notReady" }), ["c-stale"]);
    assert.deepEqual(await names({ health: "pending" }), ["e-pending"]);
    assert.deepEqual(await names({ health: "ready" }), ["a-flapping", "b-quiet", "d-degraded"]);
    assert.deepEqual(await names({ enrollment: "blocked" }), ["c-stale", "e-pending"]);
    assert.deepEqual(await names({ enrollment: "enrolled", health: "ready" }), ["a-flapping", "b-quiet", "d-degraded"]);

    const all = await list({});
    const reasons = Object.fromEntries(all.items.map((c) => [c.name, c.reasons.map((r) => r.code)]));
    assert.deepEqual(reasons, {
      "a-flapping": ["flapping"],
      "b-quiet": [],
      "c-stale": ["noHeartbeat", ...(requiredLabels.length ? ["missingLabels"] : [])],
      "d-degraded": ["degraded"],
      "e-pending": ["pending", ...(requiredLabels.length ? ["missingLabels"] : [])],
    });
    // Enrollment has its own fields instead of a reason; before the first evaluation nothing is known of what blocks it.
    const stale = all.items.find((c) => c.name === "c-stale")!;
    assert.equal(stale.enrolledAt, null);
    assert.equal(stale.enrollmentBlockedOn, null);
    assert.ok(all.items.find((c) => c.name === "b-quiet")!.enrolledAt);
    assert.deepEqual(all.items.find((c) => c.name === "b-quiet")!.enrollmentBlockedOn, []);
    // NotReady since: the stale cluster's status time; nothing for the others.
    assert.ok(stale.notReadySince);
    assert.equal(all.items.find((c) => c.name === "b-quiet")!.notReadySince, null);
    assert.deepEqual(all.items.find((c) => c.name === "a-flapping")?.reasons, [{ code: "flapping", changes: 3 }]);

    await assert.rejects(updateSettings(actor, { flappingThresholdPerHour: 0 }));
    await updateSettings(actor, { flappingThresholdPerHour: 4 });
  });

  test("blockedOn lists exactly the clusters the Overview counts as blocked on that item", async () => {
    await evaluateEnrollment(new Date());
    const summary = enrollmentSummary();
    assert.ok(summary);
    let some = 0;
    for (const key of CHECKLIST_KEYS) {
      const got = await listClusters(listClustersQuerySchema.parse({ blockedOn: key }));
      assert.equal(got.total, summary.blockedBy[key] ?? 0, `blockedOn=${key}`);
      // Each row names the items it is blocked on, as the filter reads them.
      assert.ok(
        got.items.every((c) => c.enrollmentBlockedOn?.includes(key)),
        `blockedOn=${key} rows name ${key}`,
      );
      some += got.total;
    }
    assert.ok(some > 0, "some cluster is blocked on something");
  });

  test("a cluster whose heartbeat stopped is blocked on the heartbeat, not on Ready as well", async () => {
    await evaluateEnrollment(new Date());
    const on = async (key: ChecklistKey) =>
      (await listClusters(listClustersQuerySchema.parse({ blockedOn: key }))).items.map((c) => c.name);
    assert.ok((await on("heartbeat")).includes("c-stale"));
    assert.ok(!(await on("ready")).includes("c-stale"));
    const stale = (await listClusters(listClustersQuerySchema.parse({ q: "c-stale" }))).items[0]!;
    assert.ok(stale.enrollmentBlockedOn?.includes("heartbeat"));
    assert.ok(!stale.enrollmentBlockedOn?.includes("ready"));
  });
});
