// The clusters list (GET /api/v1/clusters's service, its query parsed by the route's contract) and
// the status counts, in-process on the engine TEST_ENGINE picks: 1,300 seeded clusters with varied
// labels, phases and heartbeats; every answer is compared with the same question asked of the pure
// domain functions (selector matching, computed status).
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { matchesSelector, parseSelector } from "@/lib/domain/selector";
import { clusterStatus } from "@/lib/domain/status";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { groupRoutes } from "@/lib/contracts/groups";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { overview } from "@/lib/server/fleet/overview";
import { createGroup } from "@/lib/server/groups/groups";
import { appDatabase } from "../helpers/app-database";
import { ADMIN, callRoute, patchSettings } from "../helpers/route-call";
import { insertRows, ts, type Value } from "../helpers/seed-rows";
import { testEngine } from "../helpers/test-database";

const COUNT = 1300;
const THRESHOLD_SECONDS = 3600; // no seeded heartbeat crosses it during the test

type Seeded = {
  id: string;
  name: string;
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
  labels: Record<string, string>;
};

const database = appDatabase();
const clusters: Seeded[] = [];

const list = (query: Record<string, string>) => callRoute(clusterRoutes.list, { query }, ({ query }) => listClusters(query));

describe(`the cluster list and the status counts on ${testEngine()}`, () => {
  before(async () => {
    const patched = await patchSettings({ notReadyThresholdSeconds: THRESHOLD_SECONDS });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const now = Date.now();
    const rows: Value[][] = [];
    const labels: Value[][] = [];
    for (let i = 0; i < COUNT; i++) {
      const id = `cl_list${String(i).padStart(8, "0")}`;
      // Names in a different order than ids, so sorting by name is really tested.
      const name = `c-${String((i * 7919) % COUNT).padStart(5, "0")}`;
      const phase = i % 97 === 0 ? "Draining" : i % 83 === 0 ? "Deregistration" : i % 89 === 0 ? "Provisioning" : "Active";
      const lastHeartbeatAt =
        i % 50 === 1 ? null : new Date(i % 20 === 3 ? now - 2 * THRESHOLD_SECONDS * 1000 : now - (i % 600) * 1000);
      const apiServerHealth = lastHeartbeatAt === null ? null : i % 31 === 5 ? "down" : "ok";
      const l: Record<string, string> = { env: ["prod", "staging", "dev"][i % 3]!, region: ["eu", "us", "ap"][(i % 4) % 3]! };
      if (i % 5 === 0) l.tier = "critical";
      else if (i % 5 === 1) l.tier = "standard";
      if (i % 7 === 0) l.legacy = "";
      // A few lack the required "region" label, or have it empty (which counts as missing).
      if (i % 97 === 50) delete l.region;
      if (i % 89 === 40) l.region = "";
      clusters.push({ id, name, phase, lastHeartbeatAt, apiServerHealth, labels: l });
      rows.push([
        id,
        name,
        phase,
        phase === "Provisioning" ? null : ts(now - 86_400_000),
        lastHeartbeatAt && ts(lastHeartbeatAt.getTime()),
        apiServerHealth,
        ts(now),
        ts(now),
      ]);
      for (const [k, v] of Object.entries(l)) labels.push([id, k, v]);
    }
    const columns = ["id", "name", "phase", "registeredAt", "lastHeartbeatAt", "apiServerHealth", "createdAt", "updatedAt"];
    await insertRows(database.current, "Cluster", columns, rows);
    await insertRows(database.current, "ClusterLabel", ["clusterId", "key", "value"], labels);
  });

  const status = (c: Seeded) => clusterStatus(c, new Date(), THRESHOLD_SECONDS);
  const byName = (a: Seeded, b: Seeded) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

  /** Every page of a query, following nextCursor; returns the ids in order and the first page's totals. */
  async function allPages(query: Record<string, string>) {
    const ids: string[] = [];
    let cursor: string | undefined;
    let first: { total: number; totalCapped: boolean } | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const res = await list({ limit: "200", ...query, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      first ??= { total: res.body.total, totalCapped: res.body.totalCapped };
      ids.push(...res.body.items.map((c: { id: string }) => c.id));
      cursor = res.body.nextCursor ?? undefined;
      if (!cursor) return { ids, ...first };
    }
    throw new Error("too many pages");
  }

  test("label selectors match exactly what the pure selector matches, in name order, with exact totals", async () => {
    const selectors = [
      "env=prod,region in (eu,us),!legacy",
      "tier!=critical",
      "tier notin (critical,standard),env",
      "legacy",
      "!tier,region=ap",
      "env in (prod,staging),tier=critical,legacy",
      "env=nowhere",
    ];
    for (const selector of selectors) {
      const expected = clusters.filter((c) => matchesSelector(c.labels, parseSelector(selector))).sort(byName);
      const got = await allPages({ selector });
      assert.deepEqual(
        got.ids,
        expected.map((c) => c.id),
        selector,
      );
      assert.equal(got.total, expected.length, `${selector}: total`);
      assert.equal(got.totalCapped, false, `${selector}: a selector alone is always counted exactly`);
    }
  });

  test("status filters follow the computed status; a total past 1,000 is reported as capped", async () => {
    for (const s of ["NotReady", "Pending", "Draining", "Deregistering", "Provisioning"] as const) {
      const expected = clusters.filter((c) => status(c) === s).sort(byName);
      assert.ok(expected.length > 0, `the seed has ${s} clusters`);
      const got = await allPages({ status: s });
      assert.deepEqual(
        got.ids,
        expected.map((c) => c.id),
        s,
      );
      assert.deepEqual({ total: got.total, capped: got.totalCapped }, { total: expected.length, capped: false }, s);
    }
    const ready = clusters.filter((c) => status(c) === "Ready");
    assert.ok(ready.length > 1000);
    const got = await allPages({ status: "Ready", sort: "lastHeartbeatAt", order: "desc" });
    assert.deepEqual({ total: got.total, capped: got.totalCapped }, { total: 1000, capped: true });
    // Every Ready cluster is still reachable by paging, newest heartbeat first (ties by id).
    const expected = [...ready].sort(
      (a, b) => b.lastHeartbeatAt!.getTime() - a.lastHeartbeatAt!.getTime() || (a.id < b.id ? -1 : 1),
    );
    assert.deepEqual(
      got.ids,
      expected.map((c) => c.id),
    );
  });

  test("sort=status orders by the computed status (lifecycle phases included), ties by id", async () => {
    for (const order of ["asc", "desc"] as const) {
      const sign = order === "asc" ? 1 : -1;
      const expected = [...clusters].sort((a, b) => {
        const x = status(a);
        const y = status(b);
        return x === y ? (a.id < b.id ? -1 : 1) : x < y ? -sign : sign;
      });
      const got = await allPages({ sort: "status", order });
      assert.deepEqual(
        got.ids,
        expected.map((c) => c.id),
        order,
      );
    }
  });

  test("selector, status and free text combine; wildcards in the text are taken literally", async () => {
    const selector = "env=prod,!legacy";
    const expected = clusters
      .filter((c) => matchesSelector(c.labels, parseSelector(selector)) && status(c) === "Ready" && c.name.includes("01"))
      .sort(byName);
    const got = await allPages({ selector, status: "Ready", q: "01" });
    assert.deepEqual(
      got.ids,
      expected.map((c) => c.id),
    );
    assert.equal(got.total, expected.length);

    assert.equal((await allPages({ q: "c-%1" })).ids.length, 0, "% is not a wildcard");
    assert.equal((await allPages({ q: "c_0" })).ids.length, 0, "_ is not a wildcard");
    const byIdPrefix = await allPages({ q: "cl_list0000001" });
    assert.deepEqual(
      byIdPrefix.ids.sort(),
      clusters.filter((c) => c.id.startsWith("cl_list0000001")).map((c) => c.id),
    );
  });

  test("a group filters by its selector, and groups and the overview count by status in one pass", async () => {
    const selector = "region in (eu,us),tier";
    const created = await callRoute(groupRoutes.create, { body: { name: "eu-us-tiered", selector } }, ({ body }) =>
      createGroup(ADMIN, body),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const members = clusters.filter((c) => matchesSelector(c.labels, parseSelector(selector)));
    const got = await allPages({ group: "eu-us-tiered" });
    assert.deepEqual(
      got.ids,
      [...members].sort(byName).map((c) => c.id),
    );

    const counts = created.body.counts;
    const ready = members.filter((c) => status(c) === "Ready").length;
    const notReady = members.filter((c) => status(c) === "NotReady").length;
    assert.deepEqual(counts, {
      total: members.length,
      Ready: ready,
      NotReady: notReady,
      other: members.length - ready - notReady,
    });

    const fleet = await callRoute(fleetRoutes.overview, {}, () => overview());
    assert.equal(fleet.status, 200, JSON.stringify(fleet.body));
    for (const s of ["Ready", "NotReady", "Pending", "Draining", "Provisioning"] as const)
      assert.equal(fleet.body.counts[s], clusters.filter((c) => status(c) === s).length, s);
    // Needs attention: NotReady the longest (all seeded at once, so ties go by id), missing labels by name.
    assert.deepEqual(
      fleet.body.attention.notReadyLongest.map((c: { id: string }) => c.id),
      clusters
        .filter((c) => status(c) === "NotReady")
        .map((c) => c.id)
        .sort()
        .slice(0, 5),
    );
    const missing = clusters.filter((c) => !c.labels.region).sort(byName);
    assert.ok(missing.length > 10);
    assert.deepEqual(
      fleet.body.attention.missingLabels,
      missing.slice(0, 10).map((c) => ({ id: c.id, name: c.name, missing: ["region"] })),
    );
  });
});
