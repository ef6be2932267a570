import { z } from "zod";
import { createPolicySchema, newRevisionSchema, updatePolicySchema } from "@/lib/domain/policies";
import { isoTime, itemsOf } from "./common";
import { route } from "./route";

export type PolicyContent = Record<string, unknown>;
export const policySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  revision: z.number().nullable(),
  content: z.record(z.string(), z.unknown()).nullable(),
  revisions: z.array(z.object({ revision: z.number(), createdAt: isoTime })),
  /** `selectorError`: the group's stored selector is invalid, so the policy reaches none of it */
  groups: z.array(z.object({ id: z.string(), name: z.string(), selectorError: z.string().nullable() })),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Policy = z.infer<typeof policySchema>;
export type PolicyInput = z.input<typeof createPolicySchema>;
export type PolicyPatch = z.input<typeof updatePolicySchema>;

export const policyRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/policies",
    summary: "Policies with their revisions and targets",
    role: "viewer",
    scope: "fleet",
    response: itemsOf(policySchema),
  }),
  create: route({
    method: "POST",
    path: "/api/v1/policies",
    summary: "Create a policy (revision 1)",
    role: "operator",
    scope: "fleet",
    body: createPolicySchema,
    response: policySchema,
    status: 201,
  }),
  get: route({
    method: "GET",
    path: "/api/v1/policies/{id}",
    summary: "A policy",
    role: "viewer",
    scope: "fleet",
    response: policySchema,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/policies/{id}",
    summary: "Edit description and target groups",
    role: "operator",
    scope: "fleet",
    body: updatePolicySchema,
    response: policySchema,
  }),
  delete: route({
    method: "DELETE",
    path: "/api/v1/policies/{id}",
    summary: "Delete a policy",
    role: "operator",
    scope: "fleet",
    status: 204,
  }),
  addRevision: route({
    method: "POST",
    path: "/api/v1/policies/{id}/revisions",
    summary: "Publish a new revision",
    role: "operator",
    scope: "fleet",
    body: newRevisionSchema,
    response: policySchema,
    status: 201,
  }),
};
