// The status sweeper (lib/server/heartbeats/status-sweeper.ts) in this process on the engine
// TEST_ENGINE picks: a registration wave's first heartbeats (recorded in batches) and the other
// transitions (one transaction each) write the same rows: a status event, Registration -> Active
// with its event for a registering cluster only, each exactly once even when two sweeps race (two
// instances), and a cluster that left Registration meanwhile keeps its phase.
import assert from "node:assert/strict";
import { test } from "node:test";
import { db } from "@/lib/server/db/client";
import { sweepStatuses } from "@/lib/server/heartbeats/status-sweeper";
import { appDatabase } from "../helpers/app-database";

appDatabase();

const WAVE = 230; // more than two batches of first heartbeats

test("first heartbeats of a wave and a NotReady are recorded once each, with their phase changes, under racing sweeps", async () => {
  const now = new Date();
  const fresh = new Date(now.getTime() - 500);
  await db().clusterEvent.deleteMany({});
  await db().cluster.deleteMany({});
  const wave = Array.from({ length: WAVE }, (_, i) => `cl_sw${String(i).padStart(4, "0")}`);
  await db().cluster.createMany({
    data: [
      // Registering clusters whose first heartbeat has just been written.
      ...wave.map((id) => ({
        id,
        name: id.replace("cl_", ""),
        phase: "Registration",
        status: "Pending",
        lastHeartbeatAt: fresh,
      })),
      // A pre-created cluster already past Registration (its phase stays) and a Ready one gone silent.
      { id: "cl_sw_draining", name: "sw-draining", phase: "Draining", status: "Pending", lastHeartbeatAt: fresh },
      {
        id: "cl_sw_silent",
        name: "sw-silent",
        phase: "Active",
        status: "Ready",
        lastHeartbeatAt: new Date(now.getTime() - 3_600_000),
      },
    ],
  });

  // Two instances sweeping at once: every transition is recorded by one of them.
  const [a, b] = await Promise.all([sweepStatuses(now), sweepStatuses(now)]);
  assert.equal(a + b, WAVE + 2);
  assert.equal(await sweepStatuses(now), 0, "nothing left to record");

  const clusters = await db().cluster.findMany({ select: { id: true, status: true, phase: true, statusChangedAt: true } });
  const byId = new Map(clusters.map((c) => [c.id, c]));
  for (const id of wave) {
    assert.equal(byId.get(id)!.status, "Ready");
    assert.equal(byId.get(id)!.phase, "Active");
    assert.equal(byId.get(id)!.statusChangedAt?.getTime(), now.getTime());
  }
  assert.deepEqual([byId.get("cl_sw_draining")!.status, byId.get("cl_sw_draining")!.phase], ["Ready", "Draining"]);
  assert.equal(byId.get("cl_sw_silent")!.status, "NotReady");

  const events = await db().clusterEvent.findMany({ orderBy: { id: "asc" } });
  const of = (id: string) => events.filter((e) => e.clusterId === id).map((e) => [e.kind, e.fromValue, e.toValue, e.reason]);
  for (const id of wave)
    assert.deepEqual(of(id), [
      ["status", "Pending", "Ready", "first heartbeat"],
      ["phase", "Registration", "Active", "first heartbeat received"],
    ]);
  assert.deepEqual(of("cl_sw_draining"), [["status", "Pending", "Ready", "first heartbeat"]]);
  assert.deepEqual(
    of("cl_sw_silent").map(([kind, from, to]) => [kind, from, to]),
    [["status", "Ready", "NotReady"]],
  );
  assert.equal(events.length, 2 * WAVE + 2);
});
