"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { auditRoutes } from "@/lib/contracts/audit";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Audit log page.

export type AuditFilters = { actor?: string; action?: string; target?: string; cursor?: string };
export type { AuditEntry } from "@/lib/contracts/audit";

function qs(params: Record<string, string | undefined>) {
  const s = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1]));
  return s.size ? `?${s}` : "";
}

export function useAudit(filters: AuditFilters) {
  return useQuery({
    queryKey: queryKeys.audit.list(filters),
    queryFn: () => fetchJson(`${auditRoutes.list.path}${qs({ ...filters, limit: "50" })}`, { schema: auditRoutes.list.response }),
    placeholderData: keepPreviousData,
  });
}
