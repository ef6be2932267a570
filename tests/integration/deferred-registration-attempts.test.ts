// Registrations refused for load (503 overloaded) reach the attempts log as "overloaded", in one
// batch per interval (lib/server/registration/deferred-attempts.ts), on the engine TEST_ENGINE
// picks: the refused request only notes it; the token is named only when its secret matches;
// a flood is bounded to MAX_ITEMISED rows plus one that counts the rest; the overview's tally
// puts them in their own bucket, outside the rate.
import assert from "node:assert/strict";
import { test } from "node:test";
import { db } from "@/lib/server/db/client";
import { sha256Hex } from "@/lib/server/auth/secrets";
import { overview } from "@/lib/server/fleet/overview";
import { listAttempts } from "@/lib/server/registration/registration-attempts";
import { DeferredAttempts, MAX_ITEMISED, OVERLOADED } from "@/lib/server/registration/deferred-attempts";
import { appDatabase } from "../helpers/app-database";

appDatabase();

const SECRET = "s".repeat(43);

test("a refusal is noted without a write, and written with the others in one batch; only a proven token is named", async () => {
  await db().registrationToken.create({
    data: {
      id: "tokdeferred1",
      name: "burst",
      secretHash: sha256Hex(SECRET),
      expiresAt: new Date(Date.now() + 3_600_000),
      maxClusters: 10,
    },
  });
  const log = new DeferredAttempts(60_000);
  log.record({ sourceAddress: "10.0.0.1", clusterName: "burst-1", bearer: `frt_tokdeferred1_${SECRET}` });
  log.record({ sourceAddress: "10.0.0.2", clusterName: "burst-2", bearer: `frt_tokdeferred1_${"x".repeat(43)}` });
  log.record({ sourceAddress: "10.0.0.3", clusterName: null, bearer: null });
  assert.equal(await db().registrationAttempt.count(), 0, "nothing written on the refused request's path");

  await log.flush();
  const rows = await db().registrationAttempt.findMany({ orderBy: { id: "asc" } });
  assert.deepEqual(
    rows.map((r) => [r.result, r.sourceAddress, r.clusterName, r.tokenId]),
    [
      [OVERLOADED, "10.0.0.1", "burst-1", "tokdeferred1"],
      [OVERLOADED, "10.0.0.2", "burst-2", null], // a wrong secret proves nothing
      [OVERLOADED, "10.0.0.3", null, null],
    ],
  );
  assert.match(rows[0]!.message ?? "", /busy/);
  // Listed by the attempts API, filtered by result and by token like any other.
  const listed = await listAttempts({ result: OVERLOADED, tokenId: "tokdeferred1", limit: 50 } as never);
  assert.deepEqual(
    listed.items.map((a) => a.clusterName),
    ["burst-1"],
  );
  await log.flush();
  assert.equal(await db().registrationAttempt.count(), 3, "an empty flush writes nothing");
});

test("a flood is bounded: MAX_ITEMISED rows per interval and one that says how many more", async () => {
  await db().registrationAttempt.deleteMany({});
  const log = new DeferredAttempts(60_000);
  for (let i = 0; i < MAX_ITEMISED + 37; i++) log.record({ sourceAddress: "10.1.0.1", clusterName: `flood-${i}`, bearer: null });
  await log.flush();
  assert.equal(await db().registrationAttempt.count({ where: { result: OVERLOADED } }), MAX_ITEMISED + 1);
  const summary = await db().registrationAttempt.findFirst({ where: { clusterName: null } });
  assert.match(summary?.message ?? "", /^37 more registration\(s\) deferred/);
});

test("the timer writes on its own, and the overview counts them as deferred, outside the rate", async () => {
  await db().registrationAttempt.deleteMany({});
  await db().registrationAttempt.createMany({ data: [{ result: "ok" }, { result: "ok" }, { result: "internal" }] });
  const log = new DeferredAttempts(50);
  log.record({ sourceAddress: "10.2.0.1", clusterName: "timer-1", bearer: null });
  log.record({ sourceAddress: "10.2.0.1", clusterName: "timer-2", bearer: null });
  const deadline = Date.now() + 5_000;
  while ((await db().registrationAttempt.count({ where: { result: OVERLOADED } })) < 2 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 25));
  const o = (await overview()).registrations!;
  assert.equal(o.total, 5);
  assert.equal(o.deferred, 2);
  assert.equal(o.failed, 1);
  assert.equal(o.byResult[OVERLOADED], 2);
  // 1 failure of 3 decided attempts: the deferred two are neither in the numerator nor the base.
  assert.equal(o.successRate, 1 - 1 / 3);
});
