import { z } from "zod";
import { createGroupSchema, updateGroupSchema } from "@/lib/domain/groups";
import { upgradeWindowsSchema } from "@/lib/domain/upgrade-windows";
import { isoTime, itemsOf } from "./common";
import { route } from "./route";

export const groupCountsSchema = z.object({ total: z.number(), Ready: z.number(), NotReady: z.number(), other: z.number() });
export type GroupCounts = z.infer<typeof groupCountsSchema>;

export const groupSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  selector: z.string(),
  /** why the stored selector cannot be used (saved before the selector limits); then no counts */
  selectorError: z.string().nullable(),
  upgradeWindows: upgradeWindowsSchema.nullable(),
  upgradeTimeZone: z.string().nullable(),
  maxUnavailable: z.number().nullable(),
  /** GET /gate?group= leaves snoozed unready clusters out unless the request says tolerateSnoozed=false */
  gateTolerateSnoozed: z.boolean(),
  counts: groupCountsSchema.nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type ClusterGroup = z.infer<typeof groupSchema>;
export type GroupInput = z.input<typeof createGroupSchema>;
export type GroupPatch = z.input<typeof updateGroupSchema>;

export const groupRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/groups",
    summary: "Cluster groups with ready/not-ready counts",
    role: "viewer",
    scope: "fleet",
    response: itemsOf(groupSchema),
  }),
  create: route({
    method: "POST",
    path: "/api/v1/groups",
    summary: "Create a group",
    role: "operator",
    scope: "fleet",
    body: createGroupSchema,
    response: groupSchema,
    status: 201,
  }),
  get: route({
    method: "GET",
    path: "/api/v1/groups/{id}",
    summary: "A group",
    role: "viewer",
    scope: "fleet",
    response: groupSchema,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/groups/{id}",
    summary: "Edit a group",
    role: "operator",
    scope: "fleet",
    body: updateGroupSchema,
    response: groupSchema,
  }),
  delete: route({
    method: "DELETE",
    path: "/api/v1/groups/{id}",
    summary: "Delete a group",
    role: "operator",
    scope: "fleet",
    status: 204,
  }),
};
