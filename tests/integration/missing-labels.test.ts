// The Overview's "missing required labels" (missingLabel in lib/server/clusters/cluster-list-sql.ts)
// on the engine TEST_ENGINE picks. It answers one of three ways by how many clusters lack the label
// (none: from two counts; many: walking names; a few: the set difference over the fleet), and each
// must give what the pure rule gives: the first clusters by name whose label is absent or empty,
// snoozed ones left out.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { missingRequiredLabels } from "@/lib/domain/labels";
import { snoozeActive } from "@/lib/domain/cluster-snooze";
import { parseSelector } from "@/lib/domain/selector";
import { missingLabel } from "@/lib/server/clusters/cluster-list-sql";
import { appDatabase } from "../helpers/app-database";
import { insertRows, ts, type Value } from "../helpers/seed-rows";
import { testEngine } from "../helpers/test-database";

// Enough clusters that one or two lacking a label sends missingLabel past its name walk.
const COUNT = 4000;
const LIMIT = 20;

type Seeded = {
  id: string;
  name: string;
  labels: Record<string, string>;
  snooze: { snoozedUntil: Date | null; snoozedAt: Date | null; statusChangedAt: Date; phaseChangedAt: Date };
};

const database = appDatabase();
const clusters: Seeded[] = [];

describe(`missing required labels on ${testEngine()}`, () => {
  before(async () => {
    const now = Date.now();
    const rows: Value[][] = [];
    const labels: Value[][] = [];
    for (let i = 0; i < COUNT; i++) {
      const id = `cl_miss${String(i).padStart(8, "0")}`;
      // Names in another order than ids, so the order by name is really tested.
      const name = `m-${String((i * 7919) % COUNT).padStart(5, "0")}`;
      const l: Record<string, string> = { env: "prod" };
      // "region": lacking on one cluster, empty on another (also lacking), and on a snoozed third.
      if (![11, 12, 13].includes(i)) l.region = "eu";
      if (i === 12) l.region = "";
      // "team": lacking on every third cluster, some of them snoozed.
      if (i % 3) l.team = "payments";
      const snoozed = i === 13 || i % 30 === 0;
      const changed = new Date(now - 3_600_000);
      const snooze = {
        snoozedUntil: snoozed ? new Date(now + 3_600_000) : null,
        snoozedAt: snoozed ? new Date(now - 60_000) : null,
        statusChangedAt: changed,
        phaseChangedAt: changed,
      };
      clusters.push({ id, name, labels: l, snooze });
      rows.push([
        id,
        name,
        "Active",
        ts(now - 86_400_000),
        ts(changed.getTime()),
        ts(changed.getTime()),
        snooze.snoozedUntil && ts(snooze.snoozedUntil.getTime()),
        snooze.snoozedAt && ts(snooze.snoozedAt.getTime()),
        ts(now),
        ts(now),
      ]);
      for (const [k, v] of Object.entries(l)) labels.push([id, k, v]);
    }
    const columns = [
      ...["id", "name", "phase", "registeredAt", "statusChangedAt", "phaseChangedAt"],
      ...["snoozedUntil", "snoozedAt", "createdAt", "updatedAt"],
    ];
    await insertRows(database.current, "Cluster", columns, rows);
    await insertRows(database.current, "ClusterLabel", ["clusterId", "key", "value"], labels);
  });

  /** The pure rule: unsnoozed clusters lacking a non-empty `key`, by name, the first `limit`. */
  function expected(key: string, among: Seeded[] = clusters): string[] {
    const now = new Date();
    return among
      .filter((c) => missingRequiredLabels(c.labels, [key]).length && !snoozeActive(c.snooze, now))
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .slice(0, LIMIT)
      .map((c) => c.id);
  }

  test("a label every cluster has: none", async () => {
    assert.deepEqual(await missingLabel("env", LIMIT), []);
  });

  test("a label two clusters lack (one has it empty): both, the snoozed third left out", async () => {
    const got = await missingLabel("region", LIMIT);
    assert.deepEqual(got, expected("region"));
    assert.deepEqual(got.sort(), ["cl_miss00000011", "cl_miss00000012"]);
  });

  test("a label a third of the fleet lacks: the first by name, snoozed ones left out", async () => {
    const got = await missingLabel("team", LIMIT);
    assert.equal(got.length, LIMIT);
    assert.deepEqual(got, expected("team"));
  });

  test("a label nobody has: the first by name", async () => {
    assert.deepEqual(await missingLabel("owner", LIMIT), expected("owner"));
  });

  test("within a team's scope: only its clusters", async () => {
    const payments = clusters.filter((c) => c.labels.team === "payments");
    const scope = [parseSelector("team=payments")];
    assert.deepEqual(await missingLabel("team", LIMIT, new Date(), scope), []);
    assert.deepEqual(await missingLabel("region", LIMIT, new Date(), scope), expected("region", payments));
  });
});
