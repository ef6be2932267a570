"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Audit log page.

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

export function useAudit(filters: AuditFilters) {
  return useQuery({
    queryKey: queryKeys.audit.list(filters),
    queryFn: () =>
      fetchJson<{ items: AuditEntry[]; nextCursor: string | null }>(`/api/v1/audit${qs({ ...filters, limit: "50" })}`),
    placeholderData: keepPreviousData,
  });
}
