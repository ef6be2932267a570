// The change gate's tolerance (lib/server/gate/evaluate-gate.ts) in this process on the engine
// TEST_ENGINE picks: maxUnready as a count and as a percentage of the clusters judged (rounded
// down), clusters NotReady for longer than a duration listed as ignored and left out of the base,
// the sentences of the verdict, and the refusals of bad values through the route's query schema.
import assert from "node:assert/strict";
import { test } from "node:test";
import { gateQuerySchema } from "@/lib/contracts/fleet";
import { db } from "@/lib/server/db/client";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { evaluateGate } from "@/lib/server/gate/evaluate-gate";
import { getSettings } from "@/lib/server/settings/settings";
import { appDatabase } from "../helpers/app-database";

appDatabase();

const now = new Date();
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
const gate = (q: Record<string, string>) =>
  evaluateGate(parseWith(gateQuerySchema, { selector: "fleet=gt", ...q }, "query"), now);

/**
 * 20 clusters matching fleet=gt: 16 ready for a deployment, 2 NotReady for 5 minutes (a silent
 * agent), 1 NotReady for 3 hours, 1 NotReady for 2 hours by its API server (heartbeats still
 * fresh: the sweeper's recorded NotReady says since when).
 */
test("setup: a fleet of 20 with NotReady clusters of different ages", async () => {
  const { requiredLabels, notReadyThresholdSeconds: threshold } = await getSettings();
  await db().clusterGroup.create({ data: { name: "gate-tolerance", selector: "fleet=gt" } });
  const rows = [
    ...Array.from({ length: 16 }, (_, i) => ({ name: `gt-ready-${i}`, lastHeartbeatAt: ago(5), apiServerHealth: "ok" })),
    { name: "gt-late-a", lastHeartbeatAt: ago(threshold + 300), apiServerHealth: "ok" },
    { name: "gt-late-b", lastHeartbeatAt: ago(threshold + 300), apiServerHealth: "ok" },
    { name: "gt-gone-3h", lastHeartbeatAt: ago(threshold + 3 * 3600), apiServerHealth: "ok" },
    {
      name: "gt-apiserver-down",
      lastHeartbeatAt: ago(5),
      apiServerHealth: "down",
      status: "NotReady",
      statusChangedAt: ago(2 * 3600),
    },
  ];
  for (const r of rows) {
    await db().cluster.create({
      data: {
        id: `cl_${r.name.replaceAll("-", "")}`,
        phase: "Active",
        registeredAt: ago(86_400),
        logsReporting: true,
        metricsReporting: true,
        ...r,
        labels: {
          create: [
            { key: "fleet", value: "gt" },
            ...requiredLabels.filter((k) => k !== "fleet").map((key) => ({ key, value: "x" })),
          ],
        },
      },
    });
  }
});

test("without tolerance, any unready cluster fails the gate and the verdict says none is tolerated", async () => {
  const r = await gate({});
  assert.equal(r.pass, false);
  assert.equal(r.clusters.length, 20);
  assert.deepEqual(
    r.clusters.filter((c) => c.reasons.length).map((c) => c.name),
    ["gt-apiserver-down", "gt-gone-3h", "gt-late-a", "gt-late-b"],
  );
  assert.deepEqual(r.tolerance, {
    maxUnready: null,
    allowed: 0,
    unready: 4,
    total: 20,
    text: "4 of 20 not ready (tolerated: none)",
  });
  assert.deepEqual(r.ignored, { longerThan: null, longerThanSeconds: null, clusters: [], text: null });
});

test("maxUnready as a count: passes at the limit, fails above it", async () => {
  const at = await gate({ maxUnready: "4" });
  assert.equal(at.pass, true, at.summary);
  assert.equal(at.tolerance.text, "4 of 20 not ready (tolerated: up to 4)");
  assert.match(at.summary, /4 of 20 cluster\(s\) matching selector "fleet=gt" are not ready, within the tolerance of 4/);
  const below = await gate({ maxUnready: "3" });
  assert.equal(below.pass, false);
  assert.equal(below.tolerance.allowed, 3);
});

test("maxUnready as a percentage of the clusters judged, rounded down", async () => {
  const twenty = await gate({ maxUnready: "20%" }); // 20% of 20 = 4
  assert.equal(twenty.pass, true);
  assert.equal(twenty.tolerance.allowed, 4);
  assert.equal(twenty.tolerance.text, "4 of 20 not ready (tolerated: up to 4, 20%)");
  const nineteen = await gate({ maxUnready: "19%" }); // 3.8 -> 3
  assert.equal(nineteen.pass, false);
  assert.equal(nineteen.tolerance.allowed, 3);
});

test("clusters NotReady for longer than the duration are listed as ignored, not judged", async () => {
  const r = await gate({ ignoreNotReadyLongerThan: "1h" });
  assert.deepEqual(r.ignored.clusters.map((c) => c.name).sort(), ["gt-apiserver-down", "gt-gone-3h"]);
  assert.equal(r.ignored.longerThan, "1h");
  assert.equal(r.ignored.longerThanSeconds, 3600);
  assert.match(r.ignored.text ?? "", /^ignored 2 NotReady for more than 1h: gt-/);
  // The API server's NotReady began when the sweeper recorded it; a silent agent's at its last heartbeat + threshold.
  const down = r.ignored.clusters.find((c) => c.name === "gt-apiserver-down")!;
  assert.equal(down.notReadySince, ago(2 * 3600).toISOString());
  assert.equal(r.clusters.length, 18, "the ignored are out of the target set");
  assert.ok(!r.clusters.some((c) => c.name === "gt-gone-3h"));
  assert.equal(r.tolerance.text, "2 of 18 not ready (tolerated: none)");
  assert.equal(r.pass, false, "the two late ones still fail");

  // Together: 2 of 18 unready, 10% of 18 = 1.8 -> 1 (fails); 12% -> 2.16 -> 2 (passes).
  assert.equal((await gate({ ignoreNotReadyLongerThan: "1h", maxUnready: "10%" })).pass, false);
  const both = await gate({ ignoreNotReadyLongerThan: "1h", maxUnready: "12%" });
  assert.equal(both.pass, true, both.summary);
  assert.equal(both.tolerance.text, "2 of 18 not ready (tolerated: up to 2, 12%)");

  // Shorter than five minutes: every NotReady cluster is ignored and the rest pass as they are.
  const short = await gate({ ignoreNotReadyLongerThan: "2m" });
  assert.equal(short.ignored.clusters.length, 4);
  assert.equal(short.pass, true, short.summary);
  assert.match(short.summary, /All 16 cluster\(s\)/);
});

test("a selection whose every match is ignored has nothing to deploy to", async () => {
  await db().cluster.create({
    data: {
      id: "cl_gtalone",
      name: "gt-alone",
      phase: "Active",
      registeredAt: ago(86_400),
      lastHeartbeatAt: ago(86_400),
      labels: { create: [{ key: "fleet", value: "gt-alone" }] },
    },
  });
  const r = await gate({ selector: "fleet=gt-alone", ignoreNotReadyLongerThan: "1h" });
  assert.equal(r.pass, false);
  assert.equal(r.clusters.length, 0);
  assert.deepEqual(
    r.ignored.clusters.map((c) => c.name),
    ["gt-alone"],
  );
  assert.match(r.summary, /Every cluster matching selector "fleet=gt-alone" was ignored/);
  const none = await gate({ selector: "fleet=nowhere", ignoreNotReadyLongerThan: "1h" });
  assert.equal(none.pass, false);
  assert.match(none.summary, /No cluster matches/);
});

test("bad tolerance values are 400 invalid_request naming the field and the rule", () => {
  const refusal = (q: Record<string, string>) => {
    try {
      parseWith(gateQuerySchema, { selector: "fleet=gt", ...q }, "query");
    } catch (err) {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 400);
      assert.equal(err.code, "invalid_request");
      return (err.details as { field: string; rule: string }[])[0];
    }
    assert.fail(`accepted ${JSON.stringify(q)}`);
  };
  assert.deepEqual(
    { ...refusal({ maxUnready: "150%" }), message: undefined },
    { field: "maxUnready", rule: "max_unready_percentage", message: undefined },
  );
  assert.equal(refusal({ maxUnready: "-1" })?.rule, "max_unready_negative");
  assert.equal(refusal({ maxUnready: "lots" })?.rule, "max_unready_invalid");
  assert.equal(refusal({ ignoreNotReadyLongerThan: "30 minutes" })?.rule, "duration_invalid");
  assert.equal(refusal({ ignoreNotReadyLongerThan: "-5m" })?.field, "ignoreNotReadyLongerThan");
  assert.equal(refusal({ ignoreNotReadyLongerThan: "0m" })?.rule, "duration_invalid");
});
