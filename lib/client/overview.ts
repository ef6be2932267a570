"use client";

import { useQuery } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";
import { useLiveEvents, whileDown } from "./live-events";
import { queryKeys } from "./query-keys";

// Data hooks of the Overview page; the event stream (live-events.ts) keeps its cache current.

export type StatusCounts = Record<"Ready" | "NotReady" | "Pending" | "Draining" | "Deregistering" | "Provisioning", number> & {
  total: number;
};

export type Overview = {
  now: string;
  counts: StatusCounts;
  notReadyThresholdSeconds: number;
  heartbeatsPerMinute: { at: string; count: number }[];
  statusHistory: { at: string; Ready: number; NotReady: number; Pending: number; Draining: number }[];
  registrations: {
    windowHours: number;
    total: number;
    succeeded: number;
    failed: number;
    successRate: number | null;
    objective: number;
    byResult: Record<string, number>;
  };
  /** From the server's last enrollment evaluation; null until its first one. */
  enrollment: {
    at: string;
    total: number;
    enrolled: number;
    blockedBy: Record<string, number>;
    labels: Record<string, string>;
  } | null;
  attention: {
    notReadyLongest: { id: string; name: string; since: string; lastHeartbeatAt: string | null; reason: string }[];
    certificatesExpiring: { id: string; name: string; serial: string; notAfter: string }[];
    missingLabels: { id: string; name: string; missing: string[] }[];
  };
};

/** The overview's charts have one-minute buckets: refetching more often shows nothing new. */
const OVERVIEW_REFRESH_MS = 60_000;

export function useOverview() {
  const live = useLiveEvents();
  return useQuery({
    queryKey: queryKeys.overview,
    queryFn: ({ signal }) => fetchJson<Overview>("/api/v1/overview", { signal }),
    refetchInterval: whileDown(live, OVERVIEW_REFRESH_MS),
  });
}
