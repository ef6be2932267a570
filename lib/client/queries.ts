"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Settings, SettingsPatch } from "@/lib/domain/settings";
import type { CaStatus } from "@/lib/domain/certificates";
import { fetchJson } from "./fetch-json";

// Every query key the console uses, in one place, so invalidation is never a guess.
export const queryKeys = {
  settings: ["settings"] as const,
  fleetCa: ["fleet-ca"] as const,
  audit: (filters: AuditFilters) => ["audit", filters] as const,
  auditAll: ["audit"] as const,
};

export type AuditFilters = { actor?: string; action?: string; target?: string; cursor?: string };
export type AuditEntry = {
  id: number;
  at: string;
  actorType: string;
  actor: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
};

function qs(params: Record<string, string | undefined>) {
  const s = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1]));
  return s.size ? `?${s}` : "";
}

export function useSettings() {
  return useQuery({ queryKey: queryKeys.settings, queryFn: () => fetchJson<Settings>("/api/v1/settings") });
}

export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: SettingsPatch) => fetchJson<Settings>("/api/v1/settings", { method: "PATCH", body: patch }),
    onSuccess: (data) => {
      client.setQueryData(queryKeys.settings, data);
      void client.invalidateQueries({ queryKey: queryKeys.auditAll });
    },
  });
}

export function useAudit(filters: AuditFilters) {
  return useQuery({
    queryKey: queryKeys.audit(filters),
    queryFn: () =>
      fetchJson<{ items: AuditEntry[]; nextCursor: string | null }>(`/api/v1/audit${qs({ ...filters, limit: "50" })}`),
    placeholderData: keepPreviousData,
  });
}

// During a rollover the progress moves as agents rotate (each at its next heartbeat): poll it
// while one runs; otherwise the CA changes only through these buttons.
const CA_ROLLOVER_POLL_MS = 5_000;

export function useFleetCa() {
  return useQuery({
    queryKey: queryKeys.fleetCa,
    queryFn: () => fetchJson<CaStatus>("/api/v1/ca"),
    refetchInterval: (q) => (q.state.data?.rollover ? CA_ROLLOVER_POLL_MS : false),
  });
}

function useCaAction(path: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => fetchJson<CaStatus>(path, { method: "POST", body: {} }),
    onSuccess: (data) => {
      client.setQueryData(queryKeys.fleetCa, data);
      void client.invalidateQueries({ queryKey: queryKeys.auditAll });
    },
  });
}

export const useStartCaRollover = () => useCaAction("/api/v1/ca/rollover");
export const useRetireOldCa = () => useCaAction("/api/v1/ca/retire");
