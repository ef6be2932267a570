// Provisioning time on the Overview (lib/server/fleet/overview.ts, lib/domain/provisioning-time.ts)
// and the "provisioning too long" reason (lib/domain/cluster-reason.ts) on the engine TEST_ENGINE
// picks: the SQL condition agrees with the pure rule on drawn facts around the threshold; the
// Overview counts the clusters pre-created in the window that registered (one claimed by a real
// agent registration), those still provisioning and those over the threshold, within a team's
// scope for a team member; the threshold setting is audited and moves the reason and the count.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { seededRandom } from "@/lib/agent/clock";
import { fleetRoutes, type Overview } from "@/lib/contracts/fleet";
import { listClustersQuerySchema } from "@/lib/contracts/clusters";
import { isProvisioningOverdue } from "@/lib/domain/cluster-reason";
import { LIFECYCLE_PHASES } from "@/lib/domain/status";
import { parseSelector, type Selector } from "@/lib/domain/selector";
import { provisioningNow } from "@/lib/server/clusters/cluster-list-sql";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { provisionCluster } from "@/lib/server/clusters/provision-cluster";
import { db } from "@/lib/server/db/client";
import { overview } from "@/lib/server/fleet/overview";
import { registerCluster } from "@/lib/server/registration/register-cluster";
import { updateSettings } from "@/lib/server/settings/settings";
import { registrationBody } from "../helpers/agent-client";
import { appDatabase } from "../helpers/app-database";
import { ADMIN, callRoute } from "../helpers/route-call";
import { testEngine } from "../helpers/test-database";

appDatabase();

const MIN = 60_000;

async function overviewOf(scope: readonly Selector[] | null = null): Promise<Overview> {
  const res = await callRoute(fleetRoutes.overview, {}, () => overview(scope, scope ? ["payments"] : []));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Overview;
}

/**
 * A cluster pre-created `minutesAgo` (its history says so) that registered `tookMinutes` later,
 * or is still provisioning (null).
 */
async function precreated(name: string, team: string, minutesAgo: number, tookMinutes: number | null) {
  const now = Date.now();
  const at = new Date(now - minutesAgo * MIN);
  const registeredAt = tookMinutes === null ? null : new Date(at.getTime() + tookMinutes * MIN);
  const id = `cl_${name.replaceAll("-", "_")}`;
  await db().cluster.create({
    data: {
      id,
      name,
      phase: registeredAt ? "Active" : "Provisioning",
      phaseChangedAt: registeredAt ?? at,
      registeredAt,
      createdAt: at,
      labels: {
        create: [
          { key: "team", value: team },
          { key: "env", value: "prod" },
          { key: "region", value: "eu" },
        ],
      },
    },
  });
  await db().clusterEvent.create({
    data: { clusterId: id, clusterName: name, kind: "phase", toValue: "Provisioning", reason: "pre-created by test", at },
  });
  if (registeredAt)
    await db().clusterEvent.create({
      data: {
        clusterId: id,
        clusterName: name,
        kind: "phase",
        fromValue: "Provisioning",
        toValue: "Registration",
        reason: "claimed",
        at: registeredAt,
      },
    });
}

describe(`provisioning time on the Overview on ${testEngine()}`, () => {
  test("the SQL condition says what isProvisioningOverdue says, at the threshold's edge", async () => {
    const now = new Date(Date.UTC(2026, 11, 8, 12, 0, 0, 417));
    const random = seededRandom(37);
    for (const threshold of [1, 10, 90]) {
      const edge = now.getTime() - threshold * MIN;
      const times = [edge, edge + 1, edge - 1, now.getTime(), now.getTime() - Math.floor(random() * 3 * threshold * MIN)];
      const clusters = Array.from({ length: 120 }, (_, i) => ({
        id: `cl_edge${threshold}_${String(i).padStart(4, "0")}`,
        name: `edge-${threshold}-${i}`,
        phase: i % 3 === 0 ? "Provisioning" : LIFECYCLE_PHASES[Math.floor(random() * LIFECYCLE_PHASES.length)]!,
        phaseChangedAt: new Date(times[Math.floor(random() * times.length)]!),
      }));
      await db().cluster.deleteMany({});
      await db().cluster.createMany({ data: clusters });
      const got = await provisioningNow(now, threshold, 1000);
      const overdue = clusters.filter((c) => isProvisioningOverdue(c, threshold, now));
      assert.ok(overdue.length > 0 && overdue.length < clusters.length, "the draw has both sides");
      assert.deepEqual([...got.overdueIds].sort(), overdue.map((c) => c.id).sort(), `threshold ${threshold}`);
      assert.equal(got.overdue, overdue.length);
      assert.equal(got.provisioning, clusters.filter((c) => c.phase === "Provisioning").length);
    }
    await db().cluster.deleteMany({});
  });

  test("nothing pre-created: no times, nothing provisioning", async () => {
    const p = (await overviewOf()).provisioning;
    assert.deepEqual(
      { ...p, longestOverThreshold: p.longestOverThreshold.length },
      {
        windowHours: 24,
        objectiveMinutes: 10,
        thresholdMinutes: 10,
        registered: 0,
        p50Ms: null,
        p90Ms: null,
        maxMs: null,
        withinObjective: 0,
        provisioning: 0,
        overThreshold: 0,
        longestOverThreshold: 0,
      },
    );
  });

  test("pre-created in the window and registered: percentiles against the objective; still provisioning and over the threshold, scoped for a team", async () => {
    // A real claim: pre-created, then registered by an agent with the bound token.
    const { registrationToken } = await provisionCluster(ADMIN, {
      name: "pay-claimed",
      labels: { team: "payments", env: "prod", region: "eu" },
      tokenTtlSeconds: 3600,
    });
    const claimed = await registerCluster(
      registrationToken.token,
      registrationBody("pay-claimed", { labels: { env: "prod", region: "eu" } }).body,
      { sourceAddress: "127.0.0.1" },
    );
    assert.equal(claimed.kind, "registered", JSON.stringify(claimed));
    const row = await db().cluster.findUniqueOrThrow({ where: { name: "pay-claimed" } });
    assert.ok(row.registeredAt, "the claim records when it registered");
    // It took 7 minutes: its pre-creation moved back in its history.
    await db().clusterEvent.updateMany({
      where: { clusterId: row.id, toValue: "Provisioning" },
      data: { at: new Date(row.registeredAt.getTime() - 7 * MIN) },
    });

    await precreated("pay-slow", "payments", 120, 30);
    await precreated("data-quick", "data", 60, 4);
    await precreated("data-mid", "data", 60, 9);
    await precreated("data-twelve", "data", 90, 12);
    // Pre-created before the window: not counted, though it registered within it.
    await precreated("data-yesterday", "data", 25 * 60, 90);
    // Still provisioning: 3 minutes (within the threshold) and 25 minutes, 2 days (over it).
    await precreated("pay-waiting", "payments", 3, null);
    await precreated("pay-stuck", "payments", 25, null);
    await precreated("data-forgotten", "data", 2 * 24 * 60, null);
    // Registered with an ordinary token: never pre-created, so no provisioning time.
    await db().cluster.create({
      data: { id: "cl_plain", name: "data-plain", phase: "Active", registeredAt: new Date(), createdAt: new Date() },
    });

    const fleet = (await overviewOf()).provisioning;
    assert.deepEqual(
      { ...fleet, longestOverThreshold: fleet.longestOverThreshold.map((c) => c.name) },
      {
        windowHours: 24,
        objectiveMinutes: 10,
        thresholdMinutes: 10,
        // 4, 7, 9, 12, 30 minutes
        registered: 5,
        p50Ms: 9 * MIN,
        p90Ms: 30 * MIN,
        maxMs: 30 * MIN,
        withinObjective: 3,
        provisioning: 3,
        overThreshold: 2,
        longestOverThreshold: ["data-forgotten", "pay-stuck"],
      },
    );
    assert.equal(fleet.longestOverThreshold[1]!.since, new Date(Date.parse(fleet.longestOverThreshold[1]!.since)).toISOString());

    // A team member's Overview counts their clusters only: 7 and 30 minutes; one of two still provisioning is over.
    const team = (await overviewOf([parseSelector("team=payments")])).provisioning;
    assert.deepEqual(
      {
        registered: team.registered,
        p50Ms: team.p50Ms,
        p90Ms: team.p90Ms,
        withinObjective: team.withinObjective,
        provisioning: team.provisioning,
        overThreshold: team.overThreshold,
        longest: team.longestOverThreshold.map((c) => c.name),
      },
      {
        registered: 2,
        p50Ms: 7 * MIN,
        p90Ms: 30 * MIN,
        withinObjective: 1,
        provisioning: 2,
        overThreshold: 1,
        longest: ["pay-stuck"],
      },
    );
  });

  test("the threshold is a setting: changed through the audited path, it moves the reason and the count", async () => {
    const reasonOf = async (name: string) =>
      (await listClusters(listClustersQuerySchema.parse({ status: "Provisioning" }))).items.find((c) => c.name === name)?.reasons;
    assert.deepEqual(
      (await reasonOf("pay-stuck"))?.map((r) => [r.code, "thresholdMinutes" in r ? r.thresholdMinutes : null]),
      [["provisioningOverdue", 10]],
    );
    assert.deepEqual(await reasonOf("pay-waiting"), [], "within the threshold: no reason, and no 'pending' either");

    await updateSettings(ADMIN, { provisioningThresholdMinutes: 30 });
    const audit = await db().auditLog.findFirst({ where: { action: "settings.update" }, orderBy: { at: "desc" } });
    assert.deepEqual(JSON.parse(audit?.details ?? "{}"), { changes: { provisioningThresholdMinutes: { from: 10, to: 30 } } });
    assert.deepEqual(await reasonOf("pay-stuck"), []);
    const p = (await overviewOf()).provisioning;
    assert.deepEqual([p.thresholdMinutes, p.overThreshold, p.provisioning], [30, 1, 3]);

    await assert.rejects(updateSettings(ADMIN, { provisioningThresholdMinutes: 0 }));
    await assert.rejects(updateSettings(ADMIN, { provisioningThresholdMinutes: 1441 }));
    await updateSettings(ADMIN, { provisioningThresholdMinutes: 10 });
  });
});
