import { z } from "zod";
import { idName, isoTime, itemsOf, labelsMap } from "./common";
import { route } from "./route";

// Registrations that wait for an operator (tokens minted with requireApproval; PROTOCOL.md
// "Approval"). A request is checked in full when recorded and holds one of its token's uses.
//   pending  -> approved (the cluster and its certificate exist; the agent collects them on its next try)
//   approved -> completed (the agent collected its certificate)
//   pending  -> denied (the use is released; the agent is told the reason: 403 registration_denied)
//   pending  -> expired (7 days without a decision: 410 registration_request_expired)

export const REGISTRATION_REQUEST_STATES = ["pending", "approved", "completed", "denied", "expired"] as const;
export type RegistrationRequestState = (typeof REGISTRATION_REQUEST_STATES)[number];

/** How long a request waits for a decision before it expires. */
export const REGISTRATION_REQUEST_TTL_DAYS = 7;

export const registrationRequestSchema = z.object({
  id: z.string(),
  name: z.string(),
  state: z.enum(REGISTRATION_REQUEST_STATES),
  /** The labels the cluster will carry: the agent's, with the token's fixed labels applied. */
  labels: labelsMap,
  token: idName,
  sourceAddress: z.string().nullable(),
  caFingerprint: z.string(),
  apiServerUrl: z.string(),
  agentVersion: z.string(),
  kubernetesVersion: z.string().nullable(),
  /** The UID of the cluster's kube-system namespace, when the agent reported it. */
  clusterUid: z.string().nullable(),
  /** Active clusters that reported the same clusterUid: probably the same Kubernetes cluster. */
  sameClusterAs: z.array(idName),
  firstSeenAt: isoTime,
  lastSeenAt: isoTime,
  expiresAt: isoTime,
  decidedAt: isoTime.nullable(),
  /** The operator who approved or denied it. */
  decidedBy: z.string().nullable(),
  /** The operator's reason for a denial (the agent is told it). */
  reason: z.string().nullable(),
  /** The cluster created when it was approved. */
  clusterId: z.string().nullable(),
});
export type RegistrationRequest = z.infer<typeof registrationRequestSchema>;

export const registrationRequestsQuerySchema = z.object({
  state: z.enum(REGISTRATION_REQUEST_STATES).optional(),
});

export const denyRequestSchema = z.object({ reason: z.string().trim().min(1).max(500) }).strict();

export const requestDecisionsSchema = z.discriminatedUnion("decision", [
  z.object({ decision: z.literal("approve"), ids: z.array(z.string().min(1)).min(1).max(500) }).strict(),
  z
    .object({
      decision: z.literal("deny"),
      ids: z.array(z.string().min(1)).min(1).max(500),
      reason: z.string().trim().min(1).max(500),
    })
    .strict(),
]);
export type RequestDecisions = z.infer<typeof requestDecisionsSchema>;

/** Each request's outcome in a bulk decision: the one that lost a race or hit a taken name says why. */
export const decisionResultsSchema = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      ok: z.boolean(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
      request: registrationRequestSchema.optional(),
    }),
  ),
});

export const registrationRequestRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/registration-requests",
    summary: "Registration requests waiting for (or past) an operator's decision, newest first",
    role: "operator",
    query: registrationRequestsQuerySchema,
    response: itemsOf(registrationRequestSchema).extend({ pending: z.number() }),
  }),
  get: route({
    method: "GET",
    path: "/api/v1/registration-requests/{id}",
    summary: "One registration request",
    role: "operator",
    response: registrationRequestSchema,
  }),
  approve: route({
    method: "POST",
    path: "/api/v1/registration-requests/{id}/approve",
    summary:
      "Approve a pending request: the cluster is created and its certificate issued for the agent's next try (409 request_not_pending if decided meanwhile, 409 cluster_conflict if the name was taken)",
    role: "operator",
    bodyOptional: true,
    body: z.object({}).strict(),
    response: registrationRequestSchema,
  }),
  deny: route({
    method: "POST",
    path: "/api/v1/registration-requests/{id}/deny",
    summary: "Deny a pending request with a reason the agent is told; the token's use is released",
    role: "operator",
    body: denyRequestSchema,
    response: registrationRequestSchema,
  }),
  decide: route({
    method: "POST",
    path: "/api/v1/registration-requests/decisions",
    summary: "Approve or deny several pending requests; each succeeds or fails on its own",
    role: "operator",
    body: requestDecisionsSchema,
    response: decisionResultsSchema,
  }),
};
