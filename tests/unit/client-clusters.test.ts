import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFAULT_FILTERS, filtersFromSearchParams, filtersToSearchParams, nextSort } from "@/lib/client/clusters";

describe("cluster list filters in the URL", () => {
  test("round-trip through the query string", () => {
    const f = {
      status: "NotReady",
      health: "flapping",
      enrollment: "blocked",
      blockedOn: "labels",
      selector: "env=prod,region in (eu,us),!legacy",
      group: "g1",
      q: "eu",
      sort: "lastHeartbeatAt",
      order: "desc",
      cursor: "NTA",
    } as const;
    assert.deepEqual(filtersFromSearchParams(filtersToSearchParams(f)), f);
  });

  test("defaults are left out of the URL", () => {
    assert.equal(filtersToSearchParams(DEFAULT_FILTERS).toString(), "");
  });

  test("unknown statuses and sorts fall back instead of reaching the API", () => {
    const f = filtersFromSearchParams(
      new URLSearchParams("status=Exploded&health=wobbly&enrollment=maybe&sort=color&order=sideways&q=%20%20"),
    );
    assert.deepEqual(f, {
      ...DEFAULT_FILTERS,
      status: undefined,
      health: undefined,
      enrollment: undefined,
      blockedOn: undefined,
      selector: undefined,
      group: undefined,
      q: undefined,
      cursor: undefined,
    });
  });
});

describe("nextSort", () => {
  test("the same column flips, a new one starts ascending (times newest first)", () => {
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "name"), { sort: "name", order: "desc" });
    assert.deepEqual(nextSort({ sort: "name", order: "desc" }, "status"), { sort: "status", order: "asc" });
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "lastHeartbeatAt"), { sort: "lastHeartbeatAt", order: "desc" });
  });
});
