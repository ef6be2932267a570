"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Settings, SettingsPatch } from "@/lib/domain/settings";
import { fetchJson } from "./fetch-json";

// Every query key the console uses, in one place, so invalidation is never a guess.
export const queryKeys = {
  settings: ["settings"] as const,
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
