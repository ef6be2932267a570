import { createGroupSchema, updateGroupSchema } from "@/lib/domain/groups";
import { route } from "./route";

export const groupRoutes = {
  list: route({ method: "GET", path: "/api/v1/groups", summary: "Cluster groups with ready/not-ready counts", role: "viewer" }),
  create: route({
    method: "POST",
    path: "/api/v1/groups",
    summary: "Create a group",
    role: "operator",
    body: createGroupSchema,
    status: 201,
  }),
  get: route({ method: "GET", path: "/api/v1/groups/{id}", summary: "A group", role: "viewer" }),
  update: route({
    method: "PATCH",
    path: "/api/v1/groups/{id}",
    summary: "Edit a group",
    role: "operator",
    body: updateGroupSchema,
  }),
  delete: route({ method: "DELETE", path: "/api/v1/groups/{id}", summary: "Delete a group", role: "operator", status: 204 }),
};
