"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { routeUrl } from "@/lib/contracts/route";
import { auditRoutes } from "@/lib/contracts/audit";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Audit log page, and its filters as they travel in the page's URL (the same
// names and ISO times as the API's query, so a link and an export say the same thing).

export type AuditFilters = { actor?: string; action?: string; target?: string; from?: string; to?: string };
export type { AuditEntry } from "@/lib/contracts/audit";

export const AUDIT_FILTER_KEYS = ["actor", "action", "target", "from", "to"] as const satisfies readonly (keyof AuditFilters)[];
const PAGE_SIZE = "50";

export function auditFiltersFromSearchParams(params: URLSearchParams): AuditFilters {
  return Object.fromEntries(
    AUDIT_FILTER_KEYS.map((k) => [k, params.get(k)?.trim() || undefined]).filter(([, v]) => v),
  ) as AuditFilters;
}

/** The query string of a filtered view (empty filters left out, so links stay short). */
export function auditFiltersToSearchParams(f: AuditFilters): URLSearchParams {
  return new URLSearchParams(AUDIT_FILTER_KEYS.flatMap((k) => (f[k] ? [[k, f[k]] as [string, string]] : [])));
}

/** The CSV export of exactly these filters, evaluated on the server. */
export function auditExportUrl(f: AuditFilters): string {
  return routeUrl(auditRoutes.export, {}, f);
}

export function useAudit(filters: AuditFilters, cursor: string | undefined) {
  return useQuery({
    queryKey: queryKeys.audit.list({ ...filters, cursor }),
    queryFn: ({ signal }) =>
      fetchJson(routeUrl(auditRoutes.list, {}, { ...filters, cursor, limit: PAGE_SIZE }), {
        signal,
        schema: auditRoutes.list.response,
      }),
    placeholderData: keepPreviousData,
  });
}
