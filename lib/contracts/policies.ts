import { createPolicySchema, newRevisionSchema, updatePolicySchema } from "@/lib/domain/policies";
import { route } from "./route";

export const policyRoutes = {
  list: route({ method: "GET", path: "/api/v1/policies", summary: "Policies with their revisions and targets", role: "viewer" }),
  create: route({
    method: "POST",
    path: "/api/v1/policies",
    summary: "Create a policy (revision 1)",
    role: "operator",
    body: createPolicySchema,
    status: 201,
  }),
  get: route({ method: "GET", path: "/api/v1/policies/{id}", summary: "A policy", role: "viewer" }),
  update: route({
    method: "PATCH",
    path: "/api/v1/policies/{id}",
    summary: "Edit description and target groups",
    role: "operator",
    body: updatePolicySchema,
  }),
  delete: route({ method: "DELETE", path: "/api/v1/policies/{id}", summary: "Delete a policy", role: "operator", status: 204 }),
  addRevision: route({
    method: "POST",
    path: "/api/v1/policies/{id}/revisions",
    summary: "Publish a new revision",
    role: "operator",
    body: newRevisionSchema,
    status: 201,
  }),
};
