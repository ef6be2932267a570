"use client";

import { useEffect, useSyncExternalStore } from "react";
import { useQueryClient, type QueryClient, type QueryKey } from "@tanstack/react-query";
import type { ClusterDetail, ClusterList } from "@/lib/contracts/clusters";
import {
  FLEET_EVENT_TYPES,
  fleetEventSchema,
  type FleetEvent,
  type FleetEventOf,
  type FleetEventType,
} from "@/lib/contracts/events";
import type { Overview } from "@/lib/contracts/fleet";
import { CLUSTER_STATUSES, isHealthStatus, statusWithHealth, type ClusterStatus } from "@/lib/domain/status";
import type { ClusterFilters } from "./cluster-filters";
import { queryKeys } from "./query-keys";

// The live event stream (GET /api/v1/events) of this browser tab: ONE EventSource shared by every
// component that wants live data, feeding the react-query cache. Components never read events
// directly; they read their queries, which this module keeps current.

export type LiveState = "connecting" | "open" | "down";

/** While the event stream is down, poll what it would have pushed. */
const FALLBACK_POLL_MS = 5_000;

export const whileDown = (live: LiveState, normal: number | false) => (live === "open" ? normal : FALLBACK_POLL_MS);

/** An event as the cache patchers read it (lib/contracts/events.ts); they do not need its type. */
type EventData<T extends FleetEventType> = Omit<FleetEventOf<T>, "type"> & { type?: T };
export type FleetSummaryEvent = EventData<"fleet.summary">;
export type ClusterStatusEvent = EventData<"cluster.status">;
export type FleetEnrollmentEvent = EventData<"fleet.enrollment">;

/** One message of the stream as a typed event; null when it is not one (malformed, unknown or misnamed). */
export function parseLiveEvent(type: string, data: string): FleetEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = fleetEventSchema.safeParse(json);
  return parsed.success && parsed.data.type === type ? parsed.data : null;
}

// ---------------------------------------------------------------------------------------------
// Pure cache patchers. Each returns its input unchanged (same reference) when nothing changes,
// so a summary every 2 s does not re-render a page whose numbers did not move.

/**
 * The overview with the counts of a fleet summary (and their total). A team member's overview
 * (`scope`) counts their clusters only: fleet-wide counts never land in it.
 */
export function withSummary(overview: Overview | undefined, summary: FleetSummaryEvent): Overview | undefined {
  if (!overview || overview.scope) return overview;
  const counts = { ...overview.counts };
  for (const key of CLUSTER_STATUSES) {
    const value = summary.counts[key];
    if (typeof value === "number") counts[key] = value;
  }
  counts.total = CLUSTER_STATUSES.reduce((sum, key) => sum + counts[key], 0);
  const same = CLUSTER_STATUSES.every((k) => counts[k] === overview.counts[k]) && counts.total === overview.counts.total;
  return same ? overview : { ...overview, counts };
}

/** The overview with a newer enrollment evaluation (an older or repeated one changes nothing; a team member's keeps its own figures). */
export function withEnrollment(overview: Overview | undefined, event: FleetEnrollmentEvent): Overview | undefined {
  if (!overview || overview.scope) return overview;
  if (overview.enrollment && Date.parse(overview.enrollment.at) >= Date.parse(event.at)) return overview;
  const { at, total, enrolled, blockedBy, labels } = event;
  return { ...overview, enrollment: { at, total, enrolled, blockedBy, labels } };
}

/** What the console shows after a health transition (STATUS_RULES decide); null for an unknown status. */
export function statusAfterTransition(phase: string, health: string): ClusterStatus | null {
  return isHealthStatus(health) ? statusWithHealth(phase, health) : null;
}

type Row = { id: string; phase: string; status: ClusterStatus; lastHeartbeatAt: string | null };

function patchRow<T extends Row>(row: T, e: ClusterStatusEvent): T {
  const status = statusAfterTransition(row.phase, e.to) ?? row.status;
  // A move to Ready means a heartbeat arrived just before the sweeper noticed; without this a
  // first heartbeat would show "Ready, last seen never" until the next refetch.
  const heard =
    e.to === "Ready" && (!row.lastHeartbeatAt || Date.parse(row.lastHeartbeatAt) < Date.parse(e.at)) ? e.at : row.lastHeartbeatAt;
  if (status === row.status && heard === row.lastHeartbeatAt) return row;
  return { ...row, status, lastHeartbeatAt: heard };
}

/** A cluster list page with one row's status moved; the page itself when the row is not on it. */
export function listWithStatus(list: ClusterList | undefined, e: ClusterStatusEvent): ClusterList | undefined {
  if (!list) return list;
  const index = list.items.findIndex((c) => c.id === e.clusterId);
  if (index < 0) return list;
  const row = list.items[index]!;
  const moved = patchRow(row, e);
  if (moved === row) return list;
  // "NotReady since" is the transition's time, as the server's statusChangedAt will say.
  const patched = moved.status === row.status ? moved : { ...moved, notReadySince: moved.status === "NotReady" ? e.at : null };
  const items = list.items.slice();
  items[index] = patched;
  return { ...list, items };
}

/** A cluster's detail with the transition applied and added on top of its history. */
export function detailWithStatus(detail: ClusterDetail | undefined, e: ClusterStatusEvent): ClusterDetail | undefined {
  if (!detail || detail.id !== e.clusterId) return detail;
  const patched = patchRow(detail, e);
  const top = detail.events[0];
  const known = top && top.kind === "status" && top.to === e.to && top.at === e.at;
  if (patched === detail && known) return detail;
  return {
    ...patched,
    events: known ? detail.events : [{ kind: "status", from: e.from, to: e.to, reason: e.reason, at: e.at }, ...detail.events],
  };
}

/** Delay before reconnect attempt `attempt` (0-based): full jitter on 1 s * 2^attempt, at most 30 s. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(30_000, 1000 * 2 ** Math.max(0, Math.min(attempt, 10)));
  return Math.max(500, Math.floor(random() * ceiling));
}

// ---------------------------------------------------------------------------------------------
// Applying one event to a query cache. `later(key, ms)` invalidates `key` once within `ms` however
// many events ask for it (a flapping fleet must not turn into a refetch per event).

export type Later = (key: QueryKey, ms: number) => void;

/** Refetches that follow an event: soon for what the user is looking at, slowly for the overview's lists. */
const SOON_MS = 750;
const SLOWLY_MS = 5_000;

export function applyLiveEvent(client: QueryClient, event: FleetEvent, later: Later): void {
  switch (event.type) {
    case "fleet.summary": {
      setIfChanged(client, queryKeys.overview, (o: Overview | undefined) => withSummary(o, event));
      return;
    }
    case "fleet.enrollment": {
      setIfChanged(client, queryKeys.overview, (o: Overview | undefined) => withEnrollment(o, event));
      return;
    }
    case "cluster.status": {
      const e = event;
      for (const query of client.getQueryCache().findAll({ queryKey: queryKeys.clusters.lists })) {
        setIfChanged(client, query.queryKey, (l: ClusterList | undefined) => listWithStatus(l, e));
        const filters = query.queryKey[2] as ClusterFilters | undefined;
        // A page filtered or sorted by status may have gained or lost rows; and a page being
        // fetched right now may have been read before this transition and would overwrite it.
        if (
          filters?.status ||
          filters?.health ||
          filters?.sort === "status" ||
          filters?.sort === "notReadySince" ||
          query.state.fetchStatus === "fetching"
        ) {
          later(query.queryKey, SOON_MS);
        } else if ((query.state.data as ClusterList | undefined)?.items.some((c) => c.id === e.clusterId)) {
          // The row's status is patched above; its reasons (worded by the server) follow slowly.
          later(query.queryKey, SLOWLY_MS);
        }
      }
      setIfChanged(client, queryKeys.clusters.detail(e.clusterId), (d: ClusterDetail | undefined) => detailWithStatus(d, e));
      if (client.getQueryState(queryKeys.clusters.detail(e.clusterId))) later(queryKeys.clusters.detail(e.clusterId), SOON_MS);
      later(queryKeys.overview, SLOWLY_MS);
      return;
    }
    case "cluster.updated": {
      const e = event;
      for (const query of client.getQueryCache().findAll({ queryKey: queryKeys.clusters.lists })) {
        const list = query.state.data as ClusterList | undefined;
        if (list?.items.some((c) => c.id === e.clusterId)) later(query.queryKey, SOON_MS);
      }
      later(queryKeys.clusters.detail(e.clusterId), SOON_MS);
      later(queryKeys.overview, SLOWLY_MS);
      return;
    }
    case "cluster.registered":
    case "cluster.removed": {
      const e = event;
      later(queryKeys.clusters.lists, SOON_MS);
      later(queryKeys.clusters.detail(e.clusterId), SOON_MS);
      later(queryKeys.overview, SLOWLY_MS);
      return;
    }
    case "registration.requests": {
      // The nav badge shows the count at once; the queue's cards follow with their facts.
      for (const query of client.getQueryCache().findAll({ queryKey: queryKeys.registrationRequests.all })) {
        setIfChanged(client, query.queryKey, (list: { pending: number } | undefined) =>
          list && typeof list.pending === "number" && list.pending !== event.pending ? { ...list, pending: event.pending } : list,
        );
      }
      later(queryKeys.registrationRequests.all, SOON_MS);
      return;
    }
  }
}

function setIfChanged<T>(client: QueryClient, key: QueryKey, update: (old: T | undefined) => T | undefined) {
  const old = client.getQueryData<T>(key);
  if (old === undefined) return;
  const next = update(old);
  if (next !== old) client.setQueryData(key, next);
}

/** A `Later` on real timers: the first request for a key starts its timer, the rest join it. */
export function coalescingInvalidator(client: QueryClient): Later {
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  return (key, ms) => {
    const id = JSON.stringify(key);
    if (pending.has(id)) return;
    pending.set(
      id,
      setTimeout(() => {
        pending.delete(id);
        void client.invalidateQueries({ queryKey: key });
      }, ms),
    );
  };
}

// ---------------------------------------------------------------------------------------------
// The connection: opened by the first component that asks, closed a while after the last one
// leaves (navigating between pages keeps it), and closed while the tab is hidden for long.

/** Pages mount and unmount on navigation: keep the stream through the gap. */
const IDLE_CLOSE_MS = 10_000;
/** A tab in the background does not need a connection (the server caps open streams). */
const HIDDEN_CLOSE_MS = 60_000;

const live = {
  state: "connecting" as LiveState,
  listeners: new Set<() => void>(),
  users: 0,
  client: null as QueryClient | null,
  later: null as Later | null,
  source: null as EventSource | null,
  attempt: 0,
  opened: false,
  retryTimer: null as ReturnType<typeof setTimeout> | null,
  idleTimer: null as ReturnType<typeof setTimeout> | null,
  hiddenTimer: null as ReturnType<typeof setTimeout> | null,
  visibilityHooked: false,
  summary: null as FleetSummaryEvent | null,
};

function notify() {
  live.listeners.forEach((fn) => fn());
}

function setState(state: LiveState) {
  if (live.state === state) return;
  live.state = state;
  notify();
}

function refreshEverything() {
  if (!live.client) return;
  void live.client.invalidateQueries({ queryKey: queryKeys.overview });
  void live.client.invalidateQueries({ queryKey: queryKeys.clusters.all });
}

function connect() {
  if (live.source || live.retryTimer || typeof EventSource === "undefined") return;
  if (typeof document !== "undefined" && document.visibilityState === "hidden" && live.opened) return;
  const source = new EventSource("/api/v1/events");
  live.source = source;
  source.onopen = () => {
    const reopened = live.opened;
    live.opened = true;
    live.attempt = 0;
    setState("open");
    // Events sent while we were away are lost: fetch the current state once.
    if (reopened) refreshEverything();
  };
  source.onerror = () => {
    // The browser's own retry is a fixed 3 s and gives up on an HTTP error: we back off instead.
    disconnect();
    setState("down");
    const delay = reconnectDelay(live.attempt++);
    live.retryTimer = setTimeout(() => {
      live.retryTimer = null;
      if (live.users > 0) connect();
    }, delay);
  };
  for (const type of FLEET_EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      const event = parseLiveEvent(type, (message as MessageEvent<string>).data);
      if (!event) return;
      if (event.type === "fleet.summary") {
        live.summary = event;
        notify();
      }
      if (live.client && live.later) applyLiveEvent(live.client, event, live.later);
    });
  }
}

function disconnect() {
  live.source?.close();
  live.source = null;
}

function hookVisibility() {
  if (live.visibilityHooked || typeof document === "undefined") return;
  live.visibilityHooked = true;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      live.hiddenTimer ??= setTimeout(() => {
        live.hiddenTimer = null;
        disconnect();
        // Background tabs do not poll (react-query pauses intervals), so "down" costs nothing.
        if (live.opened) setState("down");
      }, HIDDEN_CLOSE_MS);
    } else {
      if (live.hiddenTimer) clearTimeout(live.hiddenTimer);
      live.hiddenTimer = null;
      if (live.users > 0 && !live.source) connect();
    }
  });
}

function retain(client: QueryClient): () => void {
  if (live.client !== client) {
    live.client = client;
    live.later = coalescingInvalidator(client);
  }
  live.users++;
  if (live.idleTimer) clearTimeout(live.idleTimer);
  live.idleTimer = null;
  hookVisibility();
  connect();
  return () => {
    live.users--;
    if (live.users > 0) return;
    live.idleTimer = setTimeout(() => {
      live.idleTimer = null;
      if (live.users > 0) return;
      disconnect();
      if (live.retryTimer) clearTimeout(live.retryTimer);
      live.retryTimer = null;
      live.opened = false;
      live.attempt = 0;
      setState("connecting");
    }, IDLE_CLOSE_MS);
  };
}

function subscribe(fn: () => void) {
  live.listeners.add(fn);
  return () => live.listeners.delete(fn);
}

/** Keeps this tab's event stream open while the caller is mounted; returns its state. */
export function useLiveEvents(): LiveState {
  const client = useQueryClient();
  useEffect(() => retain(client), [client]);
  return useSyncExternalStore(
    subscribe,
    () => live.state,
    () => "connecting",
  );
}

/** The fleet's heartbeat rate from the latest summary (null until one arrives). */
export function useLiveHeartbeatRate(): number | null {
  useLiveEvents();
  return useSyncExternalStore(
    subscribe,
    () => live.summary?.heartbeatsPerSecond ?? null,
    () => null,
  );
}
