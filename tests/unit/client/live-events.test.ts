import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { QueryClient, type QueryKey } from "@tanstack/react-query";
import { queryKeys } from "@/lib/client/query-keys";
import type { ClusterDetail, ClusterList } from "@/lib/client/clusters";
import type { Overview } from "@/lib/client/overview";
import {
  applyLiveEvent,
  detailWithStatus,
  listWithStatus,
  parseLiveEvent,
  reconnectDelay,
  statusAfterTransition,
  withEnrollment,
  withSummary,
  type ClusterStatusEvent,
} from "@/lib/client/live-events";

const counts = { Ready: 3, NotReady: 1, Pending: 0, Draining: 0, Deregistering: 0, Provisioning: 0, total: 4 };
const overview = { now: "2026-01-01T00:00:00.000Z", counts, notReadyThresholdSeconds: 60 } as unknown as Overview;

function list(...rows: [id: string, status: string, phase?: string][]): ClusterList {
  return {
    items: rows.map(([id, status, phase = "Active"]) => ({
      id,
      name: id,
      status: status as never,
      phase,
      labels: {},
      lastHeartbeatAt: "2026-01-01T00:00:00.000Z",
      agentVersion: null,
      kubernetesVersion: null,
      nodeCount: null,
      registeredAt: "2025-12-31T00:00:00.000Z",
      reasons: [],
      notReadySince: null,
      enrolledAt: null,
      enrollmentBlockedOn: null,
      owner: null,
      notes: null,
      snooze: null,
    })),
    nextCursor: null,
    total: rows.length,
    totalCapped: false,
    notReadyThresholdSeconds: 60,
    now: "2026-01-01T00:00:00.000Z",
  };
}

const toNotReady: ClusterStatusEvent = {
  clusterId: "b",
  name: "b",
  from: "Ready",
  to: "NotReady",
  reason: "no heartbeat for more than 60s (threshold passed)",
  at: "2026-01-01T00:01:00.000Z",
};

describe("withSummary", () => {
  test("takes the summary's counts and recomputes the total", () => {
    const next = withSummary(overview, { at: "", heartbeatsPerSecond: 1, counts: { Ready: 2, NotReady: 2, Pending: 1 } });
    assert.deepEqual(next?.counts, { ...counts, Ready: 2, NotReady: 2, Pending: 1, total: 5 });
  });

  test("returns the same object when nothing moved, so nothing re-renders", () => {
    assert.equal(withSummary(overview, { at: "", heartbeatsPerSecond: 9, counts: { Ready: 3, NotReady: 1 } }), overview);
  });

  test("leaves a missing overview missing (not loaded yet is not zero)", () => {
    assert.equal(withSummary(undefined, { at: "", heartbeatsPerSecond: 0, counts: {} }), undefined);
  });

  test("never puts the fleet's counts into a team member's overview (their clusters only)", () => {
    const theirs = { ...overview, scope: { teams: ["payments"] } };
    assert.equal(withSummary(theirs, { at: "", heartbeatsPerSecond: 1, counts: { Ready: 900, NotReady: 12 } }), theirs);
  });
});

describe("withEnrollment", () => {
  const evaluation = {
    at: "2026-01-01T00:00:10.000Z",
    total: 4,
    enrolled: 1,
    blockedBy: { labels: 3 },
    labels: { labels: "Labels" },
  };

  test("the first evaluation replaces 'not checked yet' (null)", () => {
    const next = withEnrollment({ ...overview, enrollment: null }, { type: "fleet.enrollment", ...evaluation });
    assert.deepEqual(next?.enrollment, evaluation);
  });

  test("a newer evaluation replaces the shown one; an older or the same one changes nothing", () => {
    const shown = { ...overview, enrollment: evaluation };
    assert.equal(withEnrollment(shown, evaluation), shown);
    assert.equal(withEnrollment(shown, { ...evaluation, at: "2026-01-01T00:00:00.000Z", enrolled: 0 }), shown);
    const newer = withEnrollment(shown, { ...evaluation, at: "2026-01-01T00:00:20.000Z", enrolled: 4, blockedBy: {} });
    assert.equal(newer?.enrollment?.enrolled, 4);
    assert.deepEqual(newer?.enrollment?.blockedBy, {});
  });

  test("a team member's overview keeps its own figures: a fleet evaluation's numbers are the whole fleet's", () => {
    const theirs = { ...overview, scope: { teams: ["payments"] }, enrollment: { ...evaluation, total: 2 } };
    assert.equal(withEnrollment(theirs, { ...evaluation, at: "2026-01-01T00:00:20.000Z", total: 400 }), theirs);
  });
});

describe("statusAfterTransition", () => {
  test("lifecycle phases win over health, as on the server", () => {
    assert.equal(statusAfterTransition("Draining", "NotReady"), "Draining");
    assert.equal(statusAfterTransition("Deregistration", "Ready"), "Deregistering");
    assert.equal(statusAfterTransition("Provisioning", "Ready"), "Provisioning");
    assert.equal(statusAfterTransition("Active", "NotReady"), "NotReady");
    assert.equal(statusAfterTransition("Active", "Bogus"), null);
  });
});

describe("listWithStatus", () => {
  test("moves only the row of the event", () => {
    const before = list(["a", "Ready"], ["b", "Ready"]);
    const after = listWithStatus(before, toNotReady)!;
    assert.equal(after.items[1]!.status, "NotReady");
    assert.equal(after.items[0], before.items[0], "other rows keep their identity");
  });

  test("a page without the cluster is returned as is", () => {
    const page = list(["a", "Ready"]);
    assert.equal(listWithStatus(page, toNotReady), page);
  });

  test("a first heartbeat fills in last seen, so a Ready row never says 'never'", () => {
    const page = list(["b", "Pending"]);
    page.items[0]!.lastHeartbeatAt = null;
    const after = listWithStatus(page, { ...toNotReady, from: "Pending", to: "Ready" })!;
    assert.equal(after.items[0]!.status, "Ready");
    assert.equal(after.items[0]!.lastHeartbeatAt, toNotReady.at);
  });
});

describe("detailWithStatus", () => {
  const detail = { ...list(["b", "Ready"]).items[0]!, events: [] } as unknown as ClusterDetail;

  test("applies the status and adds the transition on top of the history, once", () => {
    const once = detailWithStatus(detail, toNotReady)!;
    assert.equal(once.status, "NotReady");
    assert.deepEqual(once.events[0], {
      kind: "status",
      from: "Ready",
      to: "NotReady",
      reason: toNotReady.reason,
      at: toNotReady.at,
    });
    assert.equal(detailWithStatus(once, toNotReady), once, "the same event twice changes nothing");
  });

  test("ignores other clusters' events", () => {
    assert.equal(detailWithStatus(detail, { ...toNotReady, clusterId: "zzz" }), detail);
  });
});

describe("reconnectDelay", () => {
  test("grows exponentially, capped at 30 s, never below 0.5 s", () => {
    const top = () => 0.999999;
    assert.equal(reconnectDelay(0, top), 999);
    assert.equal(reconnectDelay(3, top), 7999);
    assert.equal(reconnectDelay(20, top), 29_999);
    assert.equal(
      reconnectDelay(4, () => 0),
      500,
    );
  });
});

describe("applyLiveEvent", () => {
  function setup() {
    const client = new QueryClient();
    const later: [QueryKey, number][] = [];
    const named = { sort: "name", order: "asc" } as const;
    const byStatus = { status: "Ready", sort: "name", order: "asc" } as const;
    client.setQueryData(queryKeys.overview, overview);
    client.setQueryData(queryKeys.clusters.list(named), list(["a", "Ready"], ["b", "Ready"]));
    client.setQueryData(queryKeys.clusters.list(byStatus), list(["b", "Ready"]));
    return { client, later, named, byStatus, record: (key: QueryKey, ms: number) => void later.push([key, ms]) };
  }

  test("fleet.summary updates the overview counts in the cache", () => {
    const { client, record } = setup();
    applyLiveEvent(client, { type: "fleet.summary", at: "", heartbeatsPerSecond: 1, counts: { Ready: 10, NotReady: 0 } }, record);
    assert.equal(client.getQueryData<Overview>(queryKeys.overview)?.counts.total, 10);
  });

  test("fleet.enrollment puts the evaluation on the cached overview, without a refetch", () => {
    const { client, later, record } = setup();
    const evaluation = { at: "2026-01-01T00:00:10.000Z", total: 4, enrolled: 2, blockedBy: { labels: 2 }, labels: {} };
    applyLiveEvent(client, { type: "fleet.enrollment", ...evaluation }, record);
    assert.deepEqual(client.getQueryData<Overview>(queryKeys.overview)?.enrollment, evaluation);
    assert.equal(later.length, 0);
  });

  test("cluster.status patches every cached list and refetches status-filtered pages soon", () => {
    const { client, later, named, byStatus, record } = setup();
    applyLiveEvent(client, { type: "cluster.status", ...toNotReady }, record);
    assert.equal(client.getQueryData<ClusterList>(queryKeys.clusters.list(named))?.items[1]?.status, "NotReady");
    assert.equal(client.getQueryData<ClusterList>(queryKeys.clusters.list(byStatus))?.items[0]?.status, "NotReady");
    const keys = later.map(([k]) => JSON.stringify(k));
    assert.ok(keys.includes(JSON.stringify(queryKeys.clusters.list(byStatus))));
    assert.ok(keys.includes(JSON.stringify(queryKeys.overview)));
    // The page showing the row is refetched only slowly, for the row's reasons.
    const namedRefetch = later.find(([k]) => JSON.stringify(k) === JSON.stringify(queryKeys.clusters.list(named)));
    assert.ok(namedRefetch && namedRefetch[1] >= 5_000);
  });

  test("cluster.registered and cluster.removed refetch the lists and that cluster", () => {
    const { client, later, record } = setup();
    applyLiveEvent(client, { type: "cluster.removed", clusterId: "b", name: "b", at: "" }, record);
    const keys = later.map(([k]) => JSON.stringify(k));
    assert.ok(keys.includes(JSON.stringify(queryKeys.clusters.lists)));
    assert.ok(keys.includes(JSON.stringify(queryKeys.clusters.detail("b"))));
  });

  test("cluster.updated refetches only the pages showing that cluster", () => {
    const { client, later, named, record } = setup();
    applyLiveEvent(client, { type: "cluster.updated", clusterId: "a", name: "a", at: "" }, record);
    const keys = later.map(([k]) => JSON.stringify(k));
    assert.ok(keys.includes(JSON.stringify(queryKeys.clusters.list(named))));
    assert.equal(keys.filter((k) => k.includes('"list"')).length, 1);
  });

  test("unknown event types are ignored", () => {
    const { later } = setup();
    assert.equal(parseLiveEvent("something.else", JSON.stringify({ type: "something.else" })), null);
    assert.equal(later.length, 0);
  });

  test("registration.requests sets the pending count at once and refetches the queue", () => {
    const { client, later, record } = setup();
    const key = queryKeys.registrationRequests.list("pending");
    client.setQueryData(key, { items: [], pending: 0 });
    applyLiveEvent(client, { type: "registration.requests", pending: 2, at: "" }, record);
    assert.equal(client.getQueryData<{ pending: number }>(key)?.pending, 2);
    assert.deepEqual(
      later.map(([k]) => k),
      [queryKeys.registrationRequests.all],
    );
  });
});

describe("parseLiveEvent", () => {
  const status = { type: "cluster.status", ...toNotReady };

  test("reads a message of the stream as the event the server published", () => {
    assert.deepEqual(parseLiveEvent("cluster.status", JSON.stringify(status)), status);
    const pending = { type: "registration.requests", pending: 3, at: toNotReady.at };
    assert.deepEqual(parseLiveEvent("registration.requests", JSON.stringify(pending)), pending);
  });

  test("refuses a malformed event instead of patching the cache with it", () => {
    assert.equal(parseLiveEvent("cluster.status", "{not json"), null);
    assert.equal(parseLiveEvent("cluster.status", JSON.stringify({ ...status, clusterId: 7 })), null);
    const { reason: _reason, ...noReason } = status;
    assert.equal(parseLiveEvent("cluster.status", JSON.stringify(noReason)), null);
    assert.equal(parseLiveEvent("fleet.summary", JSON.stringify({ type: "fleet.summary", at: "", counts: {} })), null);
  });

  test("refuses an event whose data names another type than its message", () => {
    assert.equal(parseLiveEvent("cluster.removed", JSON.stringify(status)), null);
  });
});
