import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DEFAULT_FILTERS,
  LIST_SORTS,
  PAGE_SIZES,
  filtersFromSearchParams,
  filtersToSearchParams,
  isFiltered,
  type ClusterFilters,
} from "@/lib/client/cluster-filters";
import { listClustersQuerySchema } from "@/lib/contracts/clusters";
import { ENROLLMENT_FILTERS, HEALTH_FILTERS } from "@/lib/domain/cluster-reason";
import { CHECKLIST_KEYS } from "@/lib/domain/enrollment";
import { CLUSTER_STATUSES } from "@/lib/domain/status";

const roundTrip = (f: ClusterFilters) => filtersFromSearchParams(new URLSearchParams(filtersToSearchParams(f).toString()));
/** The state as parsed: every key present, absent ones undefined. */
const full = (f: Partial<ClusterFilters>): ClusterFilters => ({
  ...filtersFromSearchParams(new URLSearchParams()),
  ...f,
});

describe("the cluster list's URL state follows the list query contract", () => {
  test("every value the contract allows survives the URL: parse(serialize(state)) is the state", () => {
    const sorts = listClustersQuerySchema.shape.sort.unwrap().options;
    assert.deepEqual([...LIST_SORTS].sort(), [...sorts].sort(), "the sort options are the contract's");
    const states: ClusterFilters[] = [
      ...CLUSTER_STATUSES.map((status) => full({ status })),
      ...HEALTH_FILTERS.map((health) => full({ health })),
      ...ENROLLMENT_FILTERS.map((enrollment) => full({ enrollment })),
      ...CHECKLIST_KEYS.map((blockedOn) => full({ blockedOn })),
      ...sorts.flatMap((sort) => (["asc", "desc"] as const).map((order) => full({ sort, order }))),
      ...PAGE_SIZES.filter((n) => n !== 50).map((pageSize) => full({ pageSize })),
      full({ selector: "env in (prod,stage),!legacy", group: "grp 1/α", q: "eu-west & co", cursor: "NTA=" }),
      full({ status: "Draining", health: "degraded", selector: "tier=gold", sort: "registeredAt", order: "asc", pageSize: 200 }),
    ];
    for (const state of states) assert.deepEqual(roundTrip(state), state, filtersToSearchParams(state).toString());
  });

  test("keys the contract does not declare are ignored", () => {
    const parsed = filtersFromSearchParams(new URLSearchParams("status=Ready&limit=3&format=csv&color=red&utm_source=mail"));
    assert.deepEqual(parsed, full({ status: "Ready" }));
    assert.equal(filtersToSearchParams(parsed).toString(), "status=Ready");
  });

  test("values outside the contract are dropped, the rest of the URL still applies", () => {
    const parsed = filtersFromSearchParams(
      new URLSearchParams("status=ready&health=Flapping&blockedOn=nope&sort=status&order=up&pageSize=51&selector=env%3Dprod"),
    );
    assert.deepEqual(parsed, full({ sort: "status", order: DEFAULT_FILTERS.order, selector: "env=prod" }));
  });

  test("only filters count as filtering, not order or paging", () => {
    assert.equal(isFiltered(full({ sort: "status", order: "desc", pageSize: 200, cursor: "x" })), false);
    assert.equal(isFiltered(full({ blockedOn: "labels" })), true);
  });
});
