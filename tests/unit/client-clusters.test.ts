import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFAULT_FILTERS, filtersFromSearchParams, filtersToSearchParams, nextSort } from "@/lib/client/clusters";

describe("cluster list filters in the URL", () => {
  test("round-trip through the query string", () => {
    const f = {
      status: "NotReady",
      selector: "env=prod,region in (eu,us),!legacy",
      group: "g1",
      q: "eu",
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
    const f = filtersFromSearchParams(new URLSearchParams("status=Exploded&sort=color&order=sideways&q=%20%20&pageSize=7"));
    assert.deepEqual(f, {
      ...DEFAULT_FILTERS,
      status: undefined,
      selector: undefined,
      group: undefined,
      q: undefined,
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
  test("the same column flips, a new one starts ascending (times newest first)", () => {
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "name"), { sort: "name", order: "desc" });
    assert.deepEqual(nextSort({ sort: "name", order: "desc" }, "status"), { sort: "status", order: "asc" });
    assert.deepEqual(nextSort({ sort: "name", order: "asc" }, "lastHeartbeatAt"), { sort: "lastHeartbeatAt", order: "desc" });
  });
});
