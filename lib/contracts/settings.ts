import { compatibilityMatrixSchema } from "@/lib/domain/compatibility";
import { settingsPatchSchema, settingsSchema } from "@/lib/domain/settings";
import { route } from "./route";

// Fleet settings, the fleet CA, and the agent/Kubernetes compatibility matrix: the admin's knobs.

export const settingsRoutes = {
  get: route({ method: "GET", path: "/api/v1/settings", summary: "Fleet settings", role: "admin", response: settingsSchema }),
  update: route({
    method: "PATCH",
    path: "/api/v1/settings",
    summary: "Change fleet settings",
    role: "admin",
    body: settingsPatchSchema,
    response: settingsSchema,
  }),
  ca: route({
    method: "GET",
    path: "/api/v1/ca",
    summary: "The fleet CAs (fingerprint, expiry, state) and a rollover's progress",
    role: "viewer",
  }),
  caRollover: route({
    method: "POST",
    path: "/api/v1/ca/rollover",
    summary: "Start a fleet CA rollover (a new CA signs; agents rotate onto it)",
    role: "admin",
  }),
  caRetire: route({
    method: "POST",
    path: "/api/v1/ca/retire",
    summary: "Retire the old fleet CA once no current certificate chains to it (409 before)",
    role: "admin",
  }),
  compatibility: route({
    method: "GET",
    path: "/api/v1/compatibility",
    summary: "The compatibility matrix in force",
    role: "viewer",
  }),
  setCompatibility: route({
    method: "PUT",
    path: "/api/v1/compatibility",
    summary: "Replace the compatibility matrix",
    role: "admin",
    body: compatibilityMatrixSchema,
  }),
  resetCompatibility: route({
    method: "DELETE",
    path: "/api/v1/compatibility",
    summary: "Return to the shipped matrix",
    role: "admin",
  }),
  versions: route({
    method: "GET",
    path: "/api/v1/versions",
    summary: "Version distribution and flagged clusters",
    role: "viewer",
  }),
};
