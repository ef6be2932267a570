"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { routeUrl } from "@/lib/contracts/route";
import { AUDIT_PAGE_SIZE, auditRoutes, type AuditFilter } from "@/lib/contracts/audit";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Audit log page. Its filters travel in the page's URL with the same names and
// ISO times as the API's query (lib/contracts/audit.ts), so a link and an export say the same thing.

export type { AuditEntry } from "@/lib/contracts/audit";

/** The CSV export of exactly these filters, evaluated on the server. */
export function auditExportUrl(f: AuditFilter): string {
  return routeUrl(auditRoutes.export, {}, f);
}

export function useAudit(filters: AuditFilter, cursor: string | undefined) {
  return useQuery({
    queryKey: queryKeys.audit.list({ ...filters, cursor }),
    queryFn: ({ signal }) =>
      fetchJson(routeUrl(auditRoutes.list, {}, { ...filters, cursor, limit: String(AUDIT_PAGE_SIZE) }), {
        signal,
        schema: auditRoutes.list.response,
      }),
    placeholderData: keepPreviousData,
  });
}
