import "server-only";
import { cache } from "react";
import { AUDIT_PAGE_SIZE, auditFilterFromSearchParams, auditRoutes } from "@/lib/contracts/audit";
import { clusterProfileRoutes } from "@/lib/contracts/cluster-profiles";
import { clusterApiRoutes } from "@/lib/contracts/cluster-api";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { deregistrationRoutes } from "@/lib/contracts/deregistration";
import { fleetRoutes, gateQueryFromSearch } from "@/lib/contracts/fleet";
import { groupRoutes } from "@/lib/contracts/groups";
import { meRoutes } from "@/lib/contracts/me";
import { policyRoutes } from "@/lib/contracts/policies";
import { registrationRequestRoutes } from "@/lib/contracts/registration-requests";
import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { settingsRoutes } from "@/lib/contracts/settings";
import { ATTEMPTS_PAGE_SIZE, tokenRoutes } from "@/lib/contracts/tokens";
import { apiKeyRoutes, userRoutes } from "@/lib/contracts/users";
import { webhookRoutes } from "@/lib/contracts/webhooks";
import { filtersFromSearchParams, listQueryParams } from "@/lib/client/cluster-filters";
import { queryKeys } from "@/lib/client/query-keys";
import type { ConsoleRoute } from "@/lib/domain/page-roles";
import { listApiKeys } from "@/lib/server/api-keys/api-keys";
import { explainAccess } from "@/lib/server/auth/explain-access";
import { parseWith } from "@/lib/server/api/read-body";
import { listAudit } from "@/lib/server/audit/list-audit";
import { listCapiClusters } from "@/lib/server/cluster-api/capi-clusters";
import { listSources } from "@/lib/server/cluster-api/sources";
import { getExporterState } from "@/lib/server/cluster-profiles/exporter-settings";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { fleetFacts } from "@/lib/server/fleet/fleet-facts";
import { overview } from "@/lib/server/fleet/overview";
import { evaluateGate } from "@/lib/server/gate/evaluate-gate";
import { listGroups } from "@/lib/server/groups/groups";
import { getDeregistration } from "@/lib/server/lifecycle/deregistration";
import { capacity } from "@/lib/server/node-pools/node-pools";
import { getCaStatus } from "@/lib/server/pki/ca-rollover";
import { listPolicies } from "@/lib/server/policies/policies";
import { listTokens } from "@/lib/server/tokens/list-tokens";
import { listRequests } from "@/lib/server/registration-requests/list-requests";
import { listAttempts, summarizeRefusals } from "@/lib/server/registration/registration-attempts";
import { getRollout } from "@/lib/server/rollouts/get-rollout";
import { listRollouts } from "@/lib/server/rollouts/list-rollouts";
import { getSettings } from "@/lib/server/settings/settings";
import { listUsers } from "@/lib/server/users/users";
import { versionsOverview } from "@/lib/server/versions/compatibility";
import { listWebhooks } from "@/lib/server/webhooks/subscriptions";
import { teamsInReach } from "@/lib/server/teams/acting-team";
import { pageQuery, type PageQuery } from "./page-data";
import { teamRoutes } from "@/lib/contracts/teams";
import { listTeams } from "@/lib/server/teams/teams";

/** What a page was asked for: its path parameters and its query string. */
export type PageRequest = { params: Record<string, string>; search: URLSearchParams };

/**
 * The detail a page and its metadata both read, once per request (React's cache): the page
 * answers 404 for a missing one and hands the same value to the client's cache.
 */
export const rolloutOnce = cache(getRollout);
export const deregistrationOnce = cache(getDeregistration);

const param = (req: PageRequest, name: string) => req.params[name] ?? "";
const groups = () => pageQuery(groupRoutes.list, queryKeys.groups.list, async () => ({ items: await listGroups() }));

/**
 * Each console page's first queries: what its island asks for before anyone touches it, under the
 * query keys the island's hooks use, loaded the way the API route answers them. Keyed by the page
 * table (lib/domain/page-roles.ts), so a new page cannot be left without an entry.
 */
export const PAGE_QUERIES: Record<ConsoleRoute, (req: PageRequest) => PageQuery[]> = {
  // A team member's Overview is bounded to their teams' clusters, as the API's is.
  "/": () => [
    pageQuery(
      fleetRoutes.overview,
      queryKeys.overview,
      ({ principal, scope }) =>
        overview(
          scope,
          principal.teams.map((g) => g.team),
        ),
      { forTeams: true },
    ),
  ],
  "/clusters": (req) => {
    // The view the URL names, read and asked for exactly as the list's own query does.
    const filters = filtersFromSearchParams(req.search);
    const query = () => parseWith(clusterRoutes.list.query, Object.fromEntries(listQueryParams(filters)), "query");
    return [pageQuery(clusterRoutes.list, queryKeys.clusters.list(filters), () => listClusters(query())), groups()];
  },
  "/clusters/[id]": (req) => [
    pageQuery(clusterRoutes.get, queryKeys.clusters.detail(param(req, "id")), () => getCluster(param(req, "id"))),
  ],
  "/clusters/[id]/deregister": (req) => [
    pageQuery(deregistrationRoutes.get, queryKeys.deregistration(param(req, "id")), () => deregistrationOnce(param(req, "id"))),
  ],
  "/groups": () => [groups()],
  "/groups/[name]/gate": (req) => {
    // The URL's tolerance, answered by the API's own service: the page's verdict is the pipeline's.
    const q = gateQueryFromSearch(param(req, "name"), req.search);
    return [
      pageQuery(fleetRoutes.gate, queryKeys.gate(q), () => evaluateGate(parseWith(fleetRoutes.gate.query, q, "query"))),
      groups(),
    ];
  },
  "/tokens": () => [
    pageQuery(tokenRoutes.list, queryKeys.tokens.list, async () => ({ items: await listTokens() })),
    pageQuery(tokenRoutes.fleet, queryKeys.fleet, () => fleetFacts()),
    pageQuery(tokenRoutes.attempts, queryKeys.attempts.list({}), () =>
      listAttempts(parseWith(tokenRoutes.attempts.query, { limit: String(ATTEMPTS_PAGE_SIZE) }, "query")),
    ),
    pageQuery(tokenRoutes.refusals, queryKeys.attempts.refusals, () => summarizeRefusals()),
  ],
  // The queue opens on the waiting requests, unsearched.
  "/registration-requests": () => [
    pageQuery(
      registrationRequestRoutes.list,
      queryKeys.registrationRequests.queue("pending", ""),
      // A team operator's queue holds their scope's requests, as the route's.
      ({ scope }) => listRequests(parseWith(registrationRequestRoutes.list.query, { state: "pending" }, "query"), scope),
      { infinite: true, forTeams: true },
    ),
  ],
  // The sources and every CAPI Cluster seen, unfiltered (the page opens on all of them).
  "/cluster-api": () => [
    pageQuery(clusterApiRoutes.listSources, queryKeys.clusterApi.sources, () => listSources()),
    pageQuery(clusterApiRoutes.listClusters, queryKeys.clusterApi.clusters({}), () => listCapiClusters({})),
  ],
  "/policies": () => [pageQuery(policyRoutes.list, queryKeys.policies.list, async () => ({ items: await listPolicies() }))],
  "/rollouts": () => [
    pageQuery(rolloutRoutes.list, queryKeys.rollouts.list, async () => ({ items: await listRollouts() })),
    groups(),
  ],
  // The form suggests the matrix's recommended version and offers the groups.
  "/rollouts/new": () => [pageQuery(settingsRoutes.versions, queryKeys.versions, () => versionsOverview()), groups()],
  "/rollouts/[id]": (req) => [
    pageQuery(rolloutRoutes.get, queryKeys.rollouts.detail(param(req, "id")), () => rolloutOnce(param(req, "id"))),
    groups(),
  ],
  "/versions": () => [
    pageQuery(settingsRoutes.versions, queryKeys.versions, () => versionsOverview()),
    // The agent image warning (AGENT_IMAGE unset or a placeholder) renders with the page.
    pageQuery(tokenRoutes.fleet, queryKeys.fleet, () => fleetFacts()),
  ],
  "/node-pools": () => [pageQuery(fleetRoutes.capacity, queryKeys.nodePools.capacity("region"), () => capacity("region"))],
  "/audit": (req) => {
    const filters = auditFilterFromSearchParams(req.search);
    return [
      pageQuery(auditRoutes.list, queryKeys.audit.list(filters), () =>
        listAudit(parseWith(auditRoutes.list.query, { ...filters, limit: String(AUDIT_PAGE_SIZE) }, "query")),
      ),
    ];
  },
  // Which teams depends on who asks: a fleet role reads all, a team member their own.
  "/teams": () => [pageQuery(teamRoutes.list, queryKeys.teams.list, ({ principal }) => listTeams(principal), { forTeams: true })],
  // A fleet admin's every subscription; a team admin's, their teams' own (as the route answers).
  "/webhooks": () => [
    pageQuery(
      webhookRoutes.list,
      queryKeys.webhooks.list,
      async ({ principal, scope }) => ({ items: await listWebhooks(teamsInReach(principal, scope, "admin")) }),
      { forTeams: true },
    ),
    // The private-targets switch above the list (a fleet admin's only: the route is theirs).
    pageQuery(settingsRoutes.get, queryKeys.settings, () => getSettings()),
  ],
  "/settings": () => [
    pageQuery(settingsRoutes.get, queryKeys.settings, () => getSettings()),
    pageQuery(settingsRoutes.ca, queryKeys.fleetCa, () => getCaStatus()),
    pageQuery(clusterProfileRoutes.exporter, queryKeys.clusterProfileExport, () => getExporterState()),
    pageQuery(apiKeyRoutes.list, queryKeys.apiKeys, async () => ({ items: await listApiKeys() })),
    pageQuery(userRoutes.list, queryKeys.users, async () => ({ items: await listUsers() })),
  ],
  "/access": () => [
    pageQuery(meRoutes.access, queryKeys.myAccess, ({ principal }) => explainAccess(principal), { forTeams: true }),
  ],
};
