import { z } from "zod";
import { VERSION_FLAGS } from "@/lib/domain/compatibility";
import { decodeRequestCursor } from "@/lib/domain/registration-approval";
import { checkSelectorText } from "@/lib/domain/selector";
import { REGISTRATION_REQUEST_STATES } from "@/lib/domain/registration-request-states";
import { idName, isoTime, labelsMap, pageOf } from "./common";
import { route } from "./route";

// Registrations that wait for an operator (tokens minted with requireApproval; docs/protocol.md
// "Approval"). A request is checked in full when recorded and holds one of its token's uses.
// Several keys may wait for one name, one request each; approving one denies the others. Its
// states and transitions: lib/domain/registration-request-states.ts.

export { REGISTRATION_REQUEST_STATES, type RegistrationRequestState } from "@/lib/domain/registration-request-states";

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
  /** `sha256:` and the SHA-256 of the agent's public key (SPKI DER): the agent prints the same. */
  keyFingerprint: z.string(),
  /** Requests pending for this name now (this one included when pending): more than one is a choice. */
  pendingForName: z.number().int(),
  caFingerprint: z.string(),
  apiServerUrl: z.string(),
  agentVersion: z.string(),
  kubernetesVersion: z.string().nullable(),
  /** The UID of the cluster's kube-system namespace, when the agent reported it. */
  clusterUid: z.string().nullable(),
  /** Active clusters that reported the same clusterUid: probably the same Kubernetes cluster. */
  sameClusterAs: z.array(idName),
  /** What the compatibility matrix in force says of its agent and Kubernetes versions (empty: fine). */
  versionFlags: z.array(z.enum(VERSION_FLAGS)),
  /** The cluster groups whose selectors its labels match: where it lands once approved. */
  joinsGroups: z.array(idName),
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

/** The queue's page sizes: the default, and the most one page may hold. */
export const REQUESTS_PAGE_SIZE = 50;
export const REQUESTS_PAGE_MAX = 500;

export const registrationRequestsQuerySchema = z.object({
  /** One state, or `decided`: every state but pending. */
  state: z.enum([...REGISTRATION_REQUEST_STATES, "decided"]).optional(),
  /** exactly this cluster name */
  name: z.string().trim().min(1).max(63).optional(),
  /** part of the name, the source address or the token's name, the token's id, or a key fingerprint (or its first hex digits) */
  q: z.string().trim().min(1).max(200).optional(),
  /** requests made with this token */
  tokenId: z.string().trim().min(1).max(64).optional(),
  /** requests whose labels match this label selector */
  selector: z.string().superRefine(checkSelectorText).optional(),
  limit: z.coerce.number().int().min(1).max(REQUESTS_PAGE_MAX).default(REQUESTS_PAGE_SIZE),
  /** `nextCursor` of the previous page */
  cursor: z
    .string()
    .max(200)
    .transform((text, ctx) => {
      const cursor = decodeRequestCursor(text);
      if (!cursor) {
        ctx.addIssue({ code: "custom", message: "not a cursor from a previous page" });
        return z.NEVER;
      }
      return cursor;
    })
    .optional(),
});
export type RegistrationRequestsQuery = z.infer<typeof registrationRequestsQuerySchema>;

/** A pending request as a refused decision by name lists it (409 ambiguous_request's details). */
export const requestCandidateSchema = z.object({
  id: z.string(),
  keyFingerprint: z.string(),
  sourceAddress: z.string().nullable(),
  tokenName: z.string(),
  clusterUid: z.string().nullable(),
  caFingerprint: z.string(),
  apiServerUrl: z.string(),
  firstSeenAt: isoTime,
  lastSeenAt: isoTime,
});
export type RequestCandidate = z.infer<typeof requestCandidateSchema>;

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
    summary:
      "Registration requests waiting for (or past) an operator's decision, newest first, a page at a time (nextCursor), with how many are pending; a team operator's holds (and counts) only the requests whose labels their teams' scopes take in",
    role: "operator",
    scope: "clusters",
    query: registrationRequestsQuerySchema,
    response: pageOf(registrationRequestSchema).extend({ pending: z.number() }),
  }),
  get: route({
    method: "GET",
    path: "/api/v1/registration-requests/{id}",
    summary: "One registration request",
    role: "operator",
    scope: "request",
    response: registrationRequestSchema,
  }),
  approve: route({
    method: "POST",
    path: "/api/v1/registration-requests/{id}/approve",
    summary:
      "Approve a pending request (by its id, or by cluster name when only one request waits for it: else 409 ambiguous_request listing them; for a team operator, only the requests their teams' scopes take in count, and one outside reads 404 as an unknown one): the cluster is created with the labels it was requested with and its certificate issued for the agent's next try; the other requests for the name are denied (409 request_not_pending if decided meanwhile, 409 cluster_conflict if the name was taken)",
    role: "operator",
    scope: "request",
    bodyOptional: true,
    body: z.object({}).strict(),
    response: registrationRequestSchema,
  }),
  deny: route({
    method: "POST",
    path: "/api/v1/registration-requests/{id}/deny",
    summary:
      "Deny a pending request (by its id, or by cluster name when only one request in the caller's scope waits for it) with a reason the agent is told; the token's use is released",
    role: "operator",
    scope: "request",
    body: denyRequestSchema,
    response: registrationRequestSchema,
  }),
  decide: route({
    method: "POST",
    path: "/api/v1/registration-requests/decisions",
    summary:
      "Approve or deny several pending requests; each succeeds or fails on its own (for a team operator, one outside their teams' scopes fails as not_found, exactly as an unknown id, and is never decided)",
    role: "operator",
    scope: "clusters",
    body: requestDecisionsSchema,
    response: decisionResultsSchema,
  }),
};
