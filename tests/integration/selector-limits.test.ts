// Selector limits, in-process on the engine TEST_ENGINE picks (each route's query or body parsed by
// its contract, then the service the route calls): every selector is bounded (20 terms, 50 values
// per set, 1,024 characters) wherever one is accepted; a group saved before the limits is shown as
// invalid and matches nothing, never a 500; and the gate, on the cluster list's indexed SQL,
// selects exactly what the list (and the pure matcher) selects, judging each cluster as its own
// page does. That the built server stays responsive under the worst selector, and forged cursors,
// are tests/system/selector-limits.test.ts.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { groupRoutes } from "@/lib/contracts/groups";
import { policyRoutes } from "@/lib/contracts/policies";
import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { matchesSelector, parseSelector } from "@/lib/domain/selector";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { evaluateGate } from "@/lib/server/gate/evaluate-gate";
import { createGroup, getGroup, listGroups, updateGroup } from "@/lib/server/groups/groups";
import { createPolicy } from "@/lib/server/policies/policies";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { appDatabase } from "../helpers/app-database";
import { ADMIN, callRoute, patchSettings } from "../helpers/route-call";
import { insertRows, ts, type Value } from "../helpers/seed-rows";
import { assertLimit } from "../helpers/selector-refusal";
import { testEngine } from "../helpers/test-database";

const COUNT = 240;
const THRESHOLD_SECONDS = 3600;

type Seeded = { id: string; name: string; labels: Record<string, string> };

const database = appDatabase();
const clusters: Seeded[] = [];
const INVALID_GROUP = { id: "grp_over_limit", name: "legacy-wide", terms: 600 };

/** `!a,!a,...`: the selector that froze the process for 40 s. */
const negations = (n: number) => Array.from({ length: n }, () => "!a").join(",");

const askList = (query: Record<string, string>) => callRoute(clusterRoutes.list, { query }, ({ query }) => listClusters(query));
const askGate = (query: Record<string, string>) => callRoute(fleetRoutes.gate, { query }, ({ query }) => evaluateGate(query));
const clusterPage = (id: string) => callRoute(clusterRoutes.get, {}, () => getCluster(id));
const group = (idOrName: string) => callRoute(groupRoutes.get, {}, () => getGroup(idOrName));
const createGroupCall = (body: unknown) => callRoute(groupRoutes.create, { body }, ({ body }) => createGroup(ADMIN, body));
const patchGroup = (id: string, body: unknown) =>
  callRoute(groupRoutes.update, { body }, ({ body }) => updateGroup(ADMIN, id, body));
const createRolloutCall = (body: unknown) => callRoute(rolloutRoutes.create, { body }, ({ body }) => createRollout(ADMIN, body));

describe(`selector limits and the gate's selection on ${testEngine()}`, () => {
  before(async () => {
    const patched = await patchSettings({ notReadyThresholdSeconds: THRESHOLD_SECONDS });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const now = Date.now();
    const rows: Value[][] = [];
    const labels: Value[][] = [];
    for (let i = 0; i < COUNT; i++) {
      const id = `cl_sel${String(i).padStart(8, "0")}`;
      const name = `s-${String((i * 113) % COUNT).padStart(4, "0")}`;
      const l: Record<string, string> = { env: ["prod", "staging", "dev"][i % 3]!, region: ["eu", "us", "ap", "sa"][i % 4]! };
      if (i % 5 === 0) l.tier = "critical";
      if (i % 7 === 0) l.legacy = "";
      clusters.push({ id, name, labels: l });
      const heartbeat = ts(now - (i % 300) * 1000);
      // Varied facts for the gate's verdicts: stale, down, unregistered, lifecycle phases, logs and
      // metrics off, policies behind.
      const beat = i % 11 === 0 ? null : i % 23 === 0 ? ts(now - 2 * THRESHOLD_SECONDS * 1000) : heartbeat;
      rows.push([
        id,
        name,
        i % 19 === 0 ? "Draining" : i % 29 === 0 ? "Registration" : "Active",
        i % 29 === 0 ? null : ts(now - 86_400_000),
        beat,
        beat && (i % 17 === 0 ? "down" : "ok"),
        beat && i % 13 !== 0,
        beat && i % 31 !== 0,
        i % 37 === 0 ? "rev-2" : null,
        i % 37 === 0 && i % 2 === 0 ? "rev-2" : i % 37 === 0 ? "rev-1" : null,
        ts(now),
        ts(now),
      ]);
      for (const [k, v] of Object.entries(l)) labels.push([id, k, v]);
    }
    const columns = [
      "id",
      "name",
      "phase",
      "registeredAt",
      "lastHeartbeatAt",
      "apiServerHealth",
      "logsReporting",
      "metricsReporting",
      "desiredPolicyRevision",
      "appliedPolicyRevision",
      "createdAt",
      "updatedAt",
    ];
    await insertRows(database.current, "Cluster", columns, rows);
    await insertRows(database.current, "ClusterLabel", ["clusterId", "key", "value"], labels);
    // A group saved before the limits existed, straight into its table as the old code allowed.
    await insertRows(
      database.current,
      "ClusterGroup",
      ["id", "name", "selector", "createdAt", "updatedAt"],
      [[INVALID_GROUP.id, INVALID_GROUP.name, negations(INVALID_GROUP.terms), ts(now), ts(now)]],
    );
  });

  test("the cluster list, rollouts and groups refuse over-limit selectors the same way", async () => {
    const values = (n: number) => `env in (${Array.from({ length: n }, (_, i) => `v${i}`).join(",")})`;
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`).join(",");
    assertLimit(
      await askList({ selector: negations(666).slice(0, 1023) }),
      "selector",
      "terms",
      /at most 20 terms; this one has 342/,
      "list, terms",
    );
    assertLimit(
      await askList({ selector: values(51) }),
      "selector",
      "values",
      /may list at most 50 values; this one lists 51/,
      "list, values",
    );
    assertLimit(
      await askList({ selector: `env,${"x".repeat(1021)}` }),
      "selector",
      "length",
      /at most 1,024 characters long; this one has 1,025/,
      "list, length",
    );
    assert.equal((await askList({ selector: values(50) })).status, 200, "50 values are fine");
    assert.equal((await askList({ selector: terms(20) })).status, 200, "20 terms are fine");

    const rollout = await createRolloutCall({ name: "r", targetVersion: "1.5.0", selector: terms(21) });
    assertLimit(rollout, "selector", "terms", /at most 20 terms; this one has 21/, "rollout");

    const patch = await patchGroup(INVALID_GROUP.id, { selector: terms(21) });
    assertLimit(patch, "selector", "terms", /at most 20 terms; this one has 21/, "group update");
  });

  test("POST /api/v1/groups with an over-limit selector is a 400 and saves nothing", async () => {
    const countGroups = async (name: string) => {
      const sql = `SELECT count(*) AS n FROM "ClusterGroup" WHERE "name" = ${database.current.engine === "postgres" ? "$1" : "?"}`;
      const [row] = await database.current.query<{ n: unknown }>(sql, [name]);
      return Number(row?.n);
    };
    const res = await createGroupCall({ name: "too-wide", selector: negations(666).slice(0, 1023) });
    assertLimit(res, "selector", "terms", /at most 20 terms; this one has 342/, "group create");
    assert.equal(await countGroups("too-wide"), 0, "the refused group was not saved");
    const ok = await createGroupCall({ name: "twenty", selector: negations(20) });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.selectorError, null);
    assert.equal(ok.body.counts.total, COUNT);
    assert.equal(await countGroups("twenty"), 1);
  });

  test("a group saved over the limits is listed as invalid, matches nothing, and can be fixed", async () => {
    const list = await callRoute(groupRoutes.list, {}, async () => ({ items: await listGroups() }));
    assert.equal(list.status, 200, JSON.stringify(list.body).slice(0, 300));
    const bad = list.body.items.find((g: { id: string }) => g.id === INVALID_GROUP.id);
    assert.ok(bad, "still listed");
    assert.equal(bad.counts, null);
    assert.equal(bad.selectorError, "a selector may be at most 1,024 characters long; this one has 1,799");
    assert.equal((await group(INVALID_GROUP.name)).body.selectorError, bad.selectorError);

    // Named by a request: a 400 that says which group and what is wrong with it (documented choice).
    for (const [path, call] of [
      ["gate", askGate],
      ["clusters", askList],
    ] as const) {
      const res = await call({ group: INVALID_GROUP.name });
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`);
      assert.equal(res.body.error, "invalid_request");
      assert.match(res.body.message, /Group legacy-wide has an invalid selector \(a selector may be at most 1,024 characters/);
    }
    const rollout = await createRolloutCall({ name: "r", targetVersion: "1.5.0", groupId: INVALID_GROUP.id });
    assert.equal(rollout.status, 400, JSON.stringify(rollout.body));
    assert.match(rollout.body.message, /Group legacy-wide has an invalid selector/);

    // Evaluated in the background: a policy targeting it reaches no cluster, and says why.
    const policy = await callRoute(
      policyRoutes.create,
      {
        body: {
          name: "baseline",
          groupIds: [INVALID_GROUP.id],
          content: { audit: true },
        },
      },
      ({ body }) => createPolicy(ADMIN, body),
    );
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    assert.deepEqual(policy.body.groups, [{ id: INVALID_GROUP.id, name: INVALID_GROUP.name, selectorError: bad.selectorError }]);
    const cluster = await clusterPage(clusters[1]!.id);
    assert.equal(cluster.status, 200, JSON.stringify(cluster.body).slice(0, 300));
    assert.equal(cluster.body.desiredPolicyRevision, null, "an invalid group applies the policy to no cluster");
    assert.ok(!cluster.body.groups.some((g: { id: string }) => g.id === INVALID_GROUP.id), "nor counts as its group");

    // Fixed by an operator: counted again, and the policy reaches its clusters.
    const fixed = await patchGroup(INVALID_GROUP.id, { selector: "!a" });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal(fixed.body.selectorError, null);
    assert.equal(fixed.body.counts.total, COUNT);
    const after = await clusterPage(clusters[1]!.id);
    assert.equal(after.body.desiredPolicyRevision, "baseline:1");
    assert.equal((await askGate({ group: INVALID_GROUP.name })).status, 200);
  });

  test("the gate selects exactly what the cluster list and the pure matcher select, in name order", async () => {
    const byName = (a: Seeded, b: Seeded) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const selector of [
      "env=prod",
      "env=prod,region in (eu,us),!legacy",
      "tier!=critical,region notin (ap)",
      "legacy,env in (dev,staging)",
      "!tier,!legacy,region",
      "env=nowhere",
      // Repeated terms and `key` beside `key in (...)` are read once (cluster-list-sql.ts): same answer.
      "env,region,env in (prod,dev),env in (dev,prod),region,!legacy,!legacy,tier!=critical,tier!=critical",
    ]) {
      const expected = clusters
        .filter((c) => matchesSelector(c.labels, parseSelector(selector)))
        .sort(byName)
        .map((c) => c.id);
      const gate = await askGate({ selector });
      assert.equal(gate.status, 200, `${selector}: ${JSON.stringify(gate.body).slice(0, 300)}`);
      assert.deepEqual(
        gate.body.clusters.map((c: { id: string }) => c.id),
        expected,
        selector,
      );
      const list = await askList({ selector, limit: "500" });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.items.map((c: { id: string }) => c.id),
        expected,
        `${selector}: the list agrees`,
      );
      if (selector === "env=nowhere") assert.equal(gate.body.pass, false);
    }
  });

  test("the gate judges every cluster as the cluster's own page does (status, enrollment, reasons)", async () => {
    const gate = await askGate({ selector: "region in (eu,us,ap,sa)" });
    assert.equal(gate.status, 200, JSON.stringify(gate.body).slice(0, 300));
    assert.equal(gate.body.clusters.length, COUNT);
    const statuses = new Set<string>();
    for (const g of gate.body.clusters as { id: string; status: string; phase: string; enrolled: boolean; reasons: string[] }[]) {
      const page = await clusterPage(g.id);
      assert.equal(page.status, 200);
      const c = page.body;
      const items = c.enrollment.items as { key: string; label: string; ok: boolean; reason: string }[];
      const reasons: string[] = [];
      if (!c.registeredAt) reasons.push("not registered: no agent has claimed it");
      if (c.phase !== "Active") reasons.push(`phase is ${c.phase}, not Active`);
      if (c.status !== "Ready") reasons.push(`status is ${c.status}, not Ready`);
      for (const i of items) if (!i.ok && i.key !== "ready") reasons.push(`${i.label}: ${i.reason}`);
      // The two answers are computed a moment apart: a heartbeat's age may differ by a second.
      const aged = (r: string[]) => r.map((x) => x.replace(/last heartbeat [^(]+ ago/, "last heartbeat N ago"));
      assert.deepEqual(
        { status: g.status, phase: g.phase, enrolled: g.enrolled, reasons: aged(g.reasons) },
        { status: c.status, phase: c.phase, enrolled: c.enrollment.complete, reasons: aged(reasons) },
        g.id,
      );
      statuses.add(g.status);
    }
    // The seed reaches every verdict the gate can give.
    assert.deepEqual([...statuses].sort(), ["Draining", "NotReady", "Pending", "Ready"]);
  });
});
