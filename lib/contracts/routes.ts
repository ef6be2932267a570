import { auditRoutes } from "./audit";
import { clusterRoutes } from "./clusters";
import { clusterApiRoutes } from "./cluster-api";
import { clusterProfileRoutes } from "./cluster-profiles";
import { deregistrationRoutes } from "./deregistration";
import { fleetRoutes } from "./fleet";
import { groupRoutes } from "./groups";
import { labelRoutes } from "./labels";
import { meRoutes } from "./me";
import { policyRoutes } from "./policies";
import { registrationRequestRoutes } from "./registration-requests";
import type { RouteContract } from "./route";
import { rolloutRoutes } from "./rollouts";
import { settingsRoutes } from "./settings";
import { teamRoutes } from "./teams";
import { tokenRoutes } from "./tokens";
import { apiKeyRoutes, userRoutes } from "./users";
import { webhookRoutes } from "./webhooks";

/** Every admin API handler's declaration: read by the OpenAPI document and the role-matrix test. */
export const ADMIN_ROUTES: readonly RouteContract[] = [
  clusterRoutes,
  deregistrationRoutes,
  tokenRoutes,
  registrationRequestRoutes,
  groupRoutes,
  labelRoutes,
  policyRoutes,
  rolloutRoutes,
  settingsRoutes,
  userRoutes,
  apiKeyRoutes,
  teamRoutes,
  auditRoutes,
  fleetRoutes,
  clusterProfileRoutes,
  clusterApiRoutes,
  webhookRoutes,
  meRoutes,
].flatMap((routes) => Object.values(routes));
