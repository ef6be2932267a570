import { z } from "zod";
import { idCursorSchema } from "@/lib/domain/paging";
import { isoTime, pageOf } from "./common";
import { route } from "./route";

export const auditQuerySchema = z.object({
  actor: z.string().trim().max(200).optional(),
  action: z.string().trim().max(100).optional(),
  target: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** id of the last entry of the previous page */
  cursor: idCursorSchema.optional(),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditEntrySchema = z.object({
  id: z.number(),
  at: isoTime,
  actorType: z.string(),
  actor: z.string(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
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
    query: auditQuerySchema,
    response: auditPageSchema,
  }),
};
