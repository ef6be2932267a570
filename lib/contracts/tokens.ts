import { z } from "zod";
import { idCursorSchema } from "@/lib/domain/paging";
import { mintTokenSchema } from "@/lib/domain/tokens";
import { isoTime, itemsOf, labelsMap, pageOf } from "./common";
import { route } from "./route";

// Registration tokens, the registration attempts log, and the facts an agent install needs.

export const TOKEN_STATUSES = ["active", "expired", "revoked", "exhausted"] as const;

/** What the API shows of a token: never the secret or its hash. */
export const tokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  expiresAt: isoTime,
  maxClusters: z.number(),
  usedClusters: z.number(),
  status: z.enum(TOKEN_STATUSES),
  allowedLabels: z.record(z.string(), z.union([z.literal("*"), z.array(z.string())])).nullable(),
  fixedLabels: labelsMap,
  revokedAt: isoTime.nullable(),
  /** A bound token registers only this cluster (re-enrolment, or claiming a pre-created one). */
  clusterId: z.string().nullable(),
  /** New clusters registered with it wait for an operator's approval (registration requests). */
  requireApproval: z.boolean(),
  /** The team that minted it: its clusters land in the team's scope. Null: minted for the fleet. */
  team: z.string().nullable(),
  createdAt: isoTime,
});
export type TokenView = z.infer<typeof tokenViewSchema>;

/** The mint answer: the only place the secret token ever appears. */
export const mintedTokenSchema = tokenViewSchema.extend({ token: z.string() });
export type MintedToken = z.infer<typeof mintedTokenSchema>;

export const attemptsQuerySchema = z.object({
  result: z.string().max(64).optional(),
  tokenId: z.string().max(64).optional(),
  since: z.iso.datetime().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: idCursorSchema.optional(),
});

/** The attempts log's filters as the console sends them (the page size is the console's choice). */
export const attemptFiltersSchema = attemptsQuerySchema.pick({ result: true, tokenId: true, cursor: true });
export type AttemptFilters = z.input<typeof attemptFiltersSchema>;
/** The console's page of the attempts log (its first page is rendered on the server with the same size). */
export const ATTEMPTS_PAGE_SIZE = 20;

export const registrationAttemptSchema = z.object({
  id: z.number(),
  at: isoTime,
  result: z.string(),
  sourceAddress: z.string().nullable(),
  tokenId: z.string().nullable(),
  clusterName: z.string().nullable(),
  clusterId: z.string().nullable(),
  message: z.string().nullable(),
  /** Attempts the row stands for: 1, or refusals counted together past their source's budget (that minute's). */
  count: z.number().int().min(1),
});
export type RegistrationAttempt = z.infer<typeof registrationAttemptSchema>;

/** Refused registrations of the last hour, in all and from the sources that sent the most. */
export const refusalSummarySchema = z.object({
  since: isoTime,
  windowMinutes: z.number(),
  refused: z.number(),
  /** Distinct source addresses among them. */
  sources: z.number(),
  topSources: z.array(z.object({ sourceAddress: z.string().nullable(), refused: z.number() })),
});
export type RefusalSummary = z.infer<typeof refusalSummarySchema>;

/** Where an agent connects and whom it trusts: public facts only. */
export const fleetFactsSchema = z.object({
  agentUrl: z.string(),
  /** Every AGENT_HOSTNAMES entry as an agent URL, in order: the page offers the first a pod can reach. */
  agentUrls: z.array(z.string()),
  caFingerprint: z.string(),
  caNotAfter: isoTime,
  agentImage: z.string(),
  /** Why the agent image needs an admin (AGENT_IMAGE unset or a placeholder), with what to set; null when it does not. */
  agentImageWarning: z.string().nullable(),
  notReadyThresholdSeconds: z.number(),
  heartbeatIntervalSeconds: z.number(),
  requiredLabels: z.array(z.string()),
  /** Whether a new token requires approval unless its minter says otherwise. */
  requireApprovalByDefault: z.boolean(),
});
export type FleetFacts = z.infer<typeof fleetFactsSchema>;

export const tokenRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/registration-tokens",
    summary: "List registration tokens: every token for a fleet role; through teams, only the tokens of the caller's teams",
    role: "viewer",
    scope: "clusters",
    response: itemsOf(tokenViewSchema),
  }),
  mint: route({
    method: "POST",
    path: "/api/v1/registration-tokens",
    summary:
      "Mint a registration token (shown once); with `clusterId` it is bound to that cluster (re-enrolment or claiming a pre-created one; 404 for an unknown id). With `team` (or for a caller whose only roles are a team's, their team) the token is the team's: a team admin mints it, its fixed labels must satisfy the team's scope selector (422 outside_team_scope; the console pre-fills them), every cluster it registers must land in the scope (registration refuses label_not_allowed otherwise), and a bound token names a cluster in the scope",
    role: "operator",
    teamRole: "admin",
    scope: "clusters",
    body: mintTokenSchema,
    response: mintedTokenSchema,
    status: 201,
    noStore: true,
  }),
  revoke: route({
    method: "DELETE",
    path: "/api/v1/registration-tokens/{id}",
    summary: "Revoke a registration token (a team's token: by a team admin)",
    role: "operator",
    teamRole: "admin",
    scope: "token",
    response: tokenViewSchema,
  }),
  attempts: route({
    method: "GET",
    path: "/api/v1/registration-attempts",
    summary: "Registration attempts, newest first; through teams, only attempts with the caller's teams' tokens",
    role: "viewer",
    scope: "clusters",
    query: attemptsQuerySchema,
    response: pageOf(registrationAttemptSchema),
  }),
  refusals: route({
    method: "GET",
    path: "/api/v1/registration-attempts/summary",
    summary:
      "Refused registrations of the last hour: how many, and the source addresses that sent the most; through teams, only those with the caller's teams' tokens",
    role: "viewer",
    scope: "clusters",
    response: refusalSummarySchema,
  }),
  fleet: route({
    method: "GET",
    path: "/api/v1/fleet",
    summary: "Agent URL, CA fingerprint and fleet settings an agent needs",
    role: "viewer",
    scope: "member",
    response: fleetFactsSchema,
  }),
};
