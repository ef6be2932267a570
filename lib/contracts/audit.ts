import { z } from "zod";
import { idCursorSchema } from "@/lib/domain/paging";
import { isoTime, pageOf } from "./common";
import { route } from "./route";

/** An instant in a filter: ISO 8601 with a zone (what the console's URL carries). */
const instant = z.iso.datetime({ offset: true, message: "an ISO 8601 time with a zone, e.g. 2026-12-01T08:00:00Z" });

const auditFilterFields = z.object({
  /** prefix of the actor (an email, an API key's name, token:<name>) */
  actor: z.string().trim().max(200).optional(),
  /** prefix of the action ("rollout." for every rollout action) */
  action: z.string().trim().max(100).optional(),
  /** prefix of the target's id, or of its name (a cluster's, a group's, a token's...) */
  target: z.string().trim().max(200).optional(),
  /** entries at or after this instant */
  from: instant.optional(),
  /** entries before this instant */
  to: instant.optional(),
});
const fromBeforeTo = [
  (q: { from?: string; to?: string }) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to),
  { message: "from must be before to", path: ["to"] },
] satisfies [unknown, { message: string; path: string[] }];

/** The filters of the audit log, shared by the list, the CSV export and the console's URL. */
export const auditFilterSchema = auditFilterFields.refine(...fromBeforeTo);
export type AuditFilter = z.infer<typeof auditFilterSchema>;

/** The filters' names, in the order a URL carries them (the console's links use the API's names). */
export const AUDIT_FILTER_KEYS = Object.keys(auditFilterFields.shape) as (keyof AuditFilter)[];

/**
 * The filters a page's URL names, blank ones left out; unchecked, so a bad time in a shared link
 * still reaches the API and comes back with its explanation. The page reads them on the server
 * and its island in the browser, the same way, so both ask for the same query.
 */
export function auditFilterFromSearchParams(params: URLSearchParams): AuditFilter {
  return Object.fromEntries(
    AUDIT_FILTER_KEYS.map((k) => [k, params.get(k)?.trim() || undefined]).filter(([, v]) => v),
  ) as AuditFilter;
}

/** The query string of a filtered view (empty filters left out, so links stay short). */
export function auditFilterToSearchParams(f: AuditFilter): URLSearchParams {
  return new URLSearchParams(AUDIT_FILTER_KEYS.flatMap((k) => (f[k] ? [[k, f[k]] as [string, string]] : [])));
}

/** The console's page of the log (its first page is rendered on the server with the same size). */
export const AUDIT_PAGE_SIZE = 50;

export const auditQuerySchema = auditFilterFields
  .extend({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** id of the last entry of the previous page */
    cursor: idCursorSchema.optional(),
  })
  .refine(...fromBeforeTo);
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditEntrySchema = z.object({
  id: z.number(),
  at: isoTime,
  actorType: z.string(),
  actor: z.string(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  /** the target's name as it is now (or as recorded, once it is gone); null when unknown */
  targetName: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditPageSchema = pageOf(auditEntrySchema);

export const auditRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/audit",
    summary: "The audit log",
    role: "operator",
    scope: "clusters",
    query: auditQuerySchema,
    response: auditPageSchema,
  }),
  export: route({
    method: "GET",
    path: "/api/v1/audit/export",
    summary: "The audit log's entries matching a filter, as CSV (ISO 8601 times, newest first)",
    role: "operator",
    scope: "clusters",
    query: auditFilterSchema,
  }),
};
