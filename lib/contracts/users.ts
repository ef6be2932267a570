import { createApiKeySchema } from "@/lib/domain/api-keys";
import { createUserSchema, updateUserSchema } from "@/lib/domain/users";
import { route } from "./route";

// Console users and API keys: an admin's business.

export const userRoutes = {
  list: route({ method: "GET", path: "/api/v1/users", summary: "Console users", role: "admin" }),
  create: route({
    method: "POST",
    path: "/api/v1/users",
    summary: "Add a user",
    role: "admin",
    body: createUserSchema,
    status: 201,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/users/{id}",
    summary: "Change a user's role, password (ends their sessions) or disable them (and their API keys)",
    role: "admin",
    body: updateUserSchema,
  }),
};

export const apiKeyRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/api-keys",
    summary: "API keys, with their creator and the role they act with",
    role: "admin",
  }),
  create: route({
    method: "POST",
    path: "/api/v1/api-keys",
    summary: "Mint an API key (shown once; a signed-in admin only: a key cannot mint keys)",
    role: "admin",
    body: createApiKeySchema,
    status: 201,
    noStore: true,
  }),
  revoke: route({ method: "DELETE", path: "/api/v1/api-keys/{id}", summary: "Revoke an API key", role: "admin" }),
};
