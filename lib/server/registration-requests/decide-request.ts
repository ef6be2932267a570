import "server-only";
import { dueToExpire, REQUEST_TRANSITIONS, WAITING_STATE } from "@/lib/domain/registration-request-states";
import type { RegistrationRequest, RequestCandidate, RequestDecisions } from "@/lib/contracts/registration-requests";
import type { Labels } from "@/lib/domain/labels";
import { anotherApprovedReason, keyFingerprint } from "@/lib/domain/registration-approval";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { storedScope, withinScope } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import { NO_SUCH_REQUEST, noWaitingRequest } from "@/lib/server/auth/authorize";
import { randomId } from "@/lib/server/auth/secrets";
import { auditRow, recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { columns, sql } from "@/lib/server/db/sql";
import { inTransaction } from "@/lib/server/db/transaction";
import { log } from "@/lib/server/log";
import { caState } from "@/lib/server/pki/current-ca";
import { issueCertificate } from "@/lib/server/pki/issue-certificate";
import { writeRegistration } from "@/lib/server/registration/write-registration";
import { getSettings } from "@/lib/server/settings/settings";
import { denyPendingRequests } from "./deny-pending";
import { expireRequest } from "./expire-requests";
import { lockToken } from "@/lib/server/tokens/lock-token";
import { lockCandidateTokens, releaseUseIfLast } from "./held-uses";
import { publishPendingCount } from "./pending-count";
import { viewOf, type RequestRow } from "./request-view";

// An operator's decision on a pending registration request (docs/protocol.md, "Approval"). Each
// is one conditional state change, so of an approval and a denial at once exactly one wins; the
// other is told request_not_pending.

const requests = columns("RegistrationRequest");
const { approve, deny } = REQUEST_TRANSITIONS;

/** A team member's scope (null: the whole fleet): a request outside it is, for them, no request at all. */
type Scope = readonly Selector[] | null;

const inScope = (scope: Scope, r: Pick<RequestRow, "labels">) => withinScope(scope, JSON.parse(r.labels) as Labels);

/**
 * The pending request an operator decides on: by its id, or by cluster name when exactly one
 * request waits for that name. Several keys may wait for one name, so a name that is not one
 * choice is refused with the candidates (409 ambiguous_request): the operator picks by id.
 * Only requests in `scope` are considered, listed or counted.
 */
async function pendingRequest(idOrName: string, now: Date, scope: Scope): Promise<RequestRow> {
  const r = await findByIdOrName(idOrName, scope);
  if (dueToExpire(r, now)) {
    await expireRequest(r.id, now);
    throw notPending({ ...r, state: REQUEST_TRANSITIONS.expire.to });
  }
  if (r.state !== WAITING_STATE) throw notPending(r);
  return r;
}

async function findByIdOrName(idOrName: string, scope: Scope): Promise<RequestRow> {
  if (isRequestId(idOrName)) {
    const r = await db().registrationRequest.findUnique({ where: { id: idOrName } });
    // Outside the caller's scope reads exactly as an id that does not exist.
    if (!r || !inScope(scope, r)) throw new ApiError("not_found", NO_SUCH_REQUEST);
    return r;
  }
  const rows = await db().registrationRequest.findMany({
    where: { name: idOrName, state: WAITING_STATE },
    orderBy: [{ firstSeenAt: "asc" }, { id: "asc" }],
    // A team member's candidates are matched here (labels are JSON text): read them all.
    ...(scope ? {} : { take: AMBIGUOUS_LISTED + 1 }),
  });
  const waiting = rows.filter((r) => inScope(scope, r));
  const [only] = waiting;
  if (!only) throw new ApiError("not_found", noWaitingRequest(idOrName));
  if (waiting.length > 1) {
    const shown = waiting.slice(0, AMBIGUOUS_LISTED);
    throw new ApiError(
      "ambiguous_request",
      `${waiting.length > AMBIGUOUS_LISTED ? `More than ${AMBIGUOUS_LISTED}` : waiting.length} registration requests for the name ${idOrName} are waiting, each from another key: compare their key fingerprints with the one the agent printed, and decide by request id.`,
      { name: idOrName, requests: shown.map(candidate) },
    );
  }
  return only;
}

/** How many candidates a refused decision by name lists. */
const AMBIGUOUS_LISTED = 50;

const isRequestId = (text: string) => text.startsWith("rr_");

function candidate(r: RequestRow): RequestCandidate {
  return {
    id: r.id,
    keyFingerprint: keyFingerprint(r.keyHash),
    sourceAddress: r.sourceAddress,
    tokenName: r.tokenName,
    clusterUid: r.clusterUid,
    caFingerprint: r.caFingerprint,
    apiServerUrl: r.apiServerUrl,
    firstSeenAt: r.firstSeenAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
  };
}

function notPending(r: Pick<RequestRow, "name" | "state" | "decidedBy">): ApiError {
  const by = r.decidedBy ? ` by ${r.decidedBy}` : "";
  return new ApiError(
    "request_not_pending",
    r.state === "expired"
      ? `The registration request for ${r.name} expired without a decision.`
      : `The registration request for ${r.name} was already ${r.state === "completed" ? "approved" : r.state}${by}.`,
    { state: r.state },
  );
}

function nameTaken(name: string): ApiError {
  return new ApiError(
    "cluster_conflict",
    `The name ${name} now belongs to another cluster, so this request cannot be approved; it stays pending: deny it, or remove that cluster first.`,
  );
}

/**
 * A team's token lands clusters only in the team's scope (lib/domain/registration-plan.ts checks it
 * when the request is recorded): its scope may have changed, or the team gone, since. Deny it then.
 */
async function refuseOutsideTokenTeam(tokenId: string | null, labels: Labels): Promise<void> {
  if (!tokenId) return;
  const token = await db().registrationToken.findUnique({ where: { id: tokenId }, select: { teamId: true } });
  if (!token?.teamId) return;
  const team = await db().team.findUnique({ where: { id: token.teamId }, select: { name: true, selector: true } });
  const selector = team ? storedScope(team.selector) : null;
  if (team && selector && matchesSelector(labels, selector)) return;
  throw new ApiError(
    "outside_team_scope",
    team
      ? `The request came with a token of the team ${team.name}, and its labels are no longer in the team's scope (${team.selector}): deny it.`
      : "The request came with a token of a team that has since been deleted: deny it.",
  );
}

/**
 * Approves a pending request: the cluster is created as a first registration creates it (its
 * labels, a certificate for the request's key, the Registration phase, the audit naming the
 * approver), without taking another token use: the request has held one since it was recorded.
 * The agent collects its certificate on its next try.
 */
export async function approveRequest(actor: Actor, idOrName: string, scope: Scope = null): Promise<RegistrationRequest> {
  const now = new Date();
  const r = await pendingRequest(idOrName, now, scope);
  // The cluster carries exactly the labels the request was recorded with (an approval names none);
  // the very labels written are held to the approver's scope: a team never lets a cluster in
  // outside it.
  const labels = JSON.parse(r.labels) as Labels;
  if (!withinScope(scope, labels)) throw new ApiError("not_found", NO_SUCH_REQUEST);
  await refuseOutsideTokenTeam(r.tokenId, labels);
  if (await db().cluster.findUnique({ where: { name: r.name }, select: { id: true } })) throw nameTaken(r.name);
  const [settings, cas] = await Promise.all([getSettings(), caState()]);
  const clusterId = `cl_${randomId(16)}`;
  // Checked when recorded; only a stricter server since could refuse it now.
  const { row: certificate } = await issueCertificate(
    cas.issuing,
    r.csr,
    { clusterId, validityDays: settings.certificateValidityDays, now },
    "The request's CSR is no longer accepted",
  );
  try {
    await writeRegistration({
      plan: { kind: "new", labels, proof: null, consumesUse: true },
      clusterId,
      now,
      token: { id: r.tokenId, name: r.tokenName },
      agent: {
        name: r.name,
        caFingerprint: r.caFingerprint,
        apiServerUrl: r.apiServerUrl,
        agentVersion: r.agentVersion,
        kubernetesVersion: r.kubernetesVersion,
        clusterUid: r.clusterUid,
      },
      certificate,
      actor,
      // The agent is not on the line: its attempt is logged when it collects the certificate.
      attempt: null,
      approval: {
        by: actor.label,
        requestId: r.id,
        audit: auditRow(
          actor,
          "registrationRequest.approve",
          { type: "registrationRequest", id: r.id },
          { name: r.name, clusterId, tokenId: r.tokenId },
        ),
        before: async (tx) => {
          await lockCandidateTokens(tx, r.name);
          const moved = await tx.run(
            sql`UPDATE ${requests.table}
                SET ${requests("state")} = ${approve.to}, ${requests("pendingKey")} = NULL, ${requests("decidedAt")} = ${now},
                    ${requests("decidedBy")} = ${actor.label}, ${requests("clusterId")} = ${clusterId}
                WHERE ${requests("id")} = ${r.id} AND ${requests("state")} = ${approve.from}`,
          );
          if (moved !== 1) {
            const [decided] = await tx.rows<Pick<RequestRow, "state" | "decidedBy">>(
              sql`SELECT ${requests.list("state", "decidedBy")} FROM ${requests.table} WHERE ${requests("id")} = ${r.id}`,
            );
            throw notPending({ ...r, ...decided });
          }
          // The other candidates for the name: their agents are told which request won.
          await denyPendingRequests(
            tx,
            { name: r.name, exceptId: r.id },
            { actor, reason: anotherApprovedReason(r.id), now, context: { approvedRequestId: r.id } },
            { tokenId: r.tokenId, name: r.name },
          );
        },
      },
    });
  } catch (err) {
    // The unique name, in a race with a registration or a pre-created cluster.
    if (err instanceof ApiError && err.code === "cluster_conflict") throw nameTaken(r.name);
    throw err;
  }
  log.info("registration request approved", { requestId: r.id, clusterId, name: r.name, by: actor.label });
  await publishPendingCount();
  return viewOf(await db().registrationRequest.findUniqueOrThrow({ where: { id: r.id } }), scope);
}

/**
 * Denies a pending request with a reason the agent is told; the token's use is given back unless
 * another pending request of the token for the name still holds it (held-uses.ts).
 */
export async function denyRequest(
  actor: Actor,
  idOrName: string,
  reason: string,
  scope: Scope = null,
): Promise<RegistrationRequest> {
  const now = new Date();
  const r = await pendingRequest(idOrName, now, scope);
  const denied = await inTransaction(async (tx, afterCommit) => {
    if (r.tokenId) await lockToken(tx, r.tokenId);
    const moved = await tx.registrationRequest.updateMany({
      where: { id: r.id, state: deny.from },
      data: { state: deny.to, pendingKey: null, reason, decidedAt: now, decidedBy: actor.label },
    });
    if (moved.count !== 1) throw notPending((await tx.registrationRequest.findUnique({ where: { id: r.id } })) ?? r);
    const released = await releaseUseIfLast(tx, r.tokenId, r.name);
    await recordAudit(
      tx,
      actor,
      "registrationRequest.deny",
      { type: "registrationRequest", id: r.id },
      { name: r.name, reason, tokenId: r.tokenId, tokenUseReleased: released },
    );
    afterCommit(publishPendingCount);
    return tx.registrationRequest.findUniqueOrThrow({ where: { id: r.id } });
  });
  log.info("registration request denied", { requestId: r.id, name: r.name, by: actor.label });
  return viewOf(denied, scope);
}

/**
 * Several decisions, each on its own: one that lost a race or hit a taken name says why, the rest
 * go on. A request outside `scope` is never decided: it fails as not_found, exactly as an unknown id.
 */
export async function decideRequests(actor: Actor, d: RequestDecisions, scope: Scope = null) {
  const results = [];
  for (const id of new Set(d.ids)) {
    try {
      const request =
        d.decision === "approve" ? await approveRequest(actor, id, scope) : await denyRequest(actor, id, d.reason, scope);
      results.push({ id, ok: true, request });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      results.push({ id, ok: false, error: { code: err.code, message: err.message } });
    }
  }
  return { results };
}
