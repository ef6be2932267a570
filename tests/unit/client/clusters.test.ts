import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DEFAULT_FILTERS,
  filterOf,
  filtersFromSearchParams,
  filtersToSearchParams,
  nextSort,
  type ClusterFilters,
} from "@/lib/client/cluster-filters";
import { podSamples } from "@/lib/client/clusters";
import { rolloutPrefill, rolloutUrl } from "@/lib/client/cluster-bulk";

describe("cluster list filters in the URL", () => {
  test("round-trip through the query string", () => {
    const f = {
      status: "NotReady",
      health: "flapping",
      enrollment: "blocked",
      blockedOn: "labels",
      duplicateUid: "true",
      selector: "env=prod,region in (eu,us),!legacy",
      group: "g1",
      q: "eu",
      kubelet: "1.31",
      instanceType: "m5.large",
      snoozed: "false",
      agentVersion: "1.4",
      kubernetesVersion: "1.30",
      sort: "lastHeartbeatAt",
      order: "desc",
      cursor: "NTA",
      pageSize: 100,
    } as const;
    assert.deepEqual(filtersFromSearchParams(filtersToSearchParams(f)), f);
  });

  test("defaults are left out of the URL", () => {
    assert.equal(filtersToSearchParams(DEFAULT_FILTERS).toString(), "");
  });

  test("unknown statuses and sorts fall back instead of reaching the API", () => {
    const f = filtersFromSearchParams(
      new URLSearchParams(
        "status=Exploded&health=wobbly&enrollment=maybe&duplicateUid=yes&sort=color&order=sideways&q=%20%20&pageSize=7",
      ),
    );
    assert.deepEqual(f, {
      ...DEFAULT_FILTERS,
      status: undefined,
      health: undefined,
      enrollment: undefined,
      blockedOn: undefined,
      duplicateUid: undefined,
      selector: undefined,
      group: undefined,
      q: undefined,
      kubelet: undefined,
      instanceType: undefined,
      snoozed: undefined,
      agentVersion: undefined,
      kubernetesVersion: undefined,
      cursor: undefined,
      pageSize: undefined,
    });
  });

  test("the default page size is left out; the others are kept", () => {
    assert.equal(filtersToSearchParams({ ...DEFAULT_FILTERS, pageSize: 50 }).toString(), "");
    assert.equal(filtersToSearchParams({ ...DEFAULT_FILTERS, pageSize: 200 }).toString(), "pageSize=200");
  });
});

describe("nextSort", () => {
  test("the same column flips, a new one starts ascending: Last seen and NotReady since oldest first, Registered newest", () => {
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "name"), { sort: "name", order: "desc" });
    assert.deepEqual(nextSort({ sort: "name", order: "desc" }, "status"), { sort: "status", order: "asc" });
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "lastHeartbeatAt"), { sort: "lastHeartbeatAt", order: "asc" });
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "notReadySince"), { sort: "notReadySince", order: "asc" });
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "registeredAt"), { sort: "registeredAt", order: "desc" });
  });
});

test("the drain chart draws the server's history, then the count just read so the line reaches now", () => {
  const history = [
    { at: "2026-12-01T10:00:00.000Z", pods: 40 },
    { at: "2026-12-01T10:00:30.000Z", pods: 12 },
  ];
  const t0 = Date.parse(history[0]!.at);
  assert.deepEqual(podSamples(history, 5, t0 + 45_000), [
    { t: t0, pods: 40 },
    { t: t0 + 30_000, pods: 12 },
    { t: t0 + 45_000, pods: 5 },
  ]);
  assert.equal(podSamples(history, null, t0 + 45_000).length, 2, "no report: the history alone");
  assert.equal(podSamples(history, 12, t0 + 30_000).length, 2, "read no later than the last point: nothing added");
  assert.deepEqual(podSamples([], 7, t0), [{ t: t0, pods: 7 }]);
});

describe("acting on what the list shows", () => {
  const filters: ClusterFilters = { ...DEFAULT_FILTERS, health: "flapping", enrollment: "blocked", selector: "env=prod" };

  test("a bulk action's filter is the whole filter on screen, health and enrollment included", () => {
    assert.deepEqual(filterOf(filters), { health: "flapping", enrollment: "blocked", selector: "env=prod" });
  });

  test("'create a rollout' passes a lone selector or group on, any other filter whole, picked clusters as ids", () => {
    const matching = (f: ClusterFilters) => rolloutUrl({ kind: "matching", filters: f, count: 3, capped: false });
    assert.equal(matching({ ...DEFAULT_FILTERS, selector: "env=prod" }), "/rollouts/new?selector=env%3Dprod");
    assert.equal(matching({ ...DEFAULT_FILTERS, group: "grp_1" }), "/rollouts/new?group=grp_1");
    const whole = new URL(matching(filters), "http://x").searchParams.get("matching");
    assert.equal(whole, "health=flapping&enrollment=blocked&selector=env%3Dprod");
    assert.equal(rolloutUrl({ kind: "ids", ids: ["a", "b"] }), "/rollouts/new?clusters=a%2Cb");
    assert.deepEqual(rolloutPrefill(new URLSearchParams("selector=env%3Dprod")), { target: "selector", selector: "env=prod" });
    assert.deepEqual(rolloutPrefill(new URLSearchParams("clusters=a,b")), {});
  });
});
