import "server-only";
import type { TokenRow as TokenViewRow } from "@/lib/server/tokens/token-view";
import { randomId, digestsEqual, parseCredential, sha256Hex } from "@/lib/server/auth/secrets";
import { registerRequestSchema, type RegisterRequest } from "@/lib/domain/agent-protocol";
import { labelValue, missingRequiredLabels, type Labels } from "@/lib/domain/labels";
import { keptKeyCandidates, reregistrationProof, SUPERSEDED_REASON, type ReregistrationProof } from "@/lib/domain/reregistration";
import { labelOutsideScope, mergeFixedLabels, relabelForToken, tokenStatus, type AllowedLabels } from "@/lib/domain/tokens";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { db, type Tx } from "@/lib/server/db/client";
import { columns, queryRows, sql } from "@/lib/server/db/sql";
import { inTransaction } from "@/lib/server/db/transaction";
import { changePhase, type PhaseChange } from "@/lib/server/lifecycle/change-phase";
import { revokeCertificates } from "@/lib/server/pki/revoke-certificates";
import type { Phase } from "@/lib/domain/status";
import { auditRow, recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { writeNewCluster } from "./write-new-cluster";
import { rememberNewCertificate } from "@/lib/server/pki/certificate-cache";
import { getSettings } from "@/lib/server/settings/settings";
import { caState } from "@/lib/server/pki/current-ca";
import { CsrError, validateCsr, type ValidatedCsr } from "@/lib/server/pki/csr";
import { checkCsrAndSign } from "@/lib/server/pki/signing-pool";
import { certifiesKey } from "@/lib/server/pki/public-key";
import { publish } from "@/lib/server/events/bus";
import { log } from "@/lib/server/log";
import { TOKEN_PREFIX } from "@/lib/server/tokens/mint-token";
import { consumeTokenUse } from "@/lib/server/tokens/consume-token-use";
import { recomputeDesiredRevisions } from "@/lib/server/policies/policies";
import { getMatrix } from "@/lib/server/versions/compatibility";
import { agentAccepted } from "@/lib/domain/compatibility";
import type { PendingApprovalReply } from "@/lib/domain/registration-approval";
import { keyHashOf } from "@/lib/server/registration-requests/key-hash";
import { holdsUseFor } from "@/lib/server/registration-requests/held-uses";
import { recordPendingRequest } from "@/lib/server/registration-requests/record-request";
import { refuseWhileWaiting } from "@/lib/server/registration-requests/refuse-while-waiting";
import { answerKnownKey, type RepeatAnswer } from "@/lib/server/registration-requests/repeat-request";

export type RegisterResponse = {
  clusterId: string;
  certificate: string;
  caCertificate: string;
  heartbeatIntervalSeconds: number;
  heartbeatPath: "/api/agent/v1/heartbeat";
};

type TokenRecord = {
  id: string;
  name: string;
  allowedLabels: AllowedLabels | null;
  fixedLabels: Labels;
  /** Bound token: registers only this cluster. */
  clusterId: string | null;
  /** Used up: still good for a kept-key re-registration, which consumes nothing. */
  exhausted: boolean;
  /** New clusters wait for an operator's approval (a registration request). */
  requireApproval: boolean;
  /**
   * Expired or revoked: only a token that requires approval gets this far, since its agent's
   * repeats are answered from their request (a revoked token's only with a denial); anything else
   * is refused token_expired or token_revoked.
   */
  expired: boolean;
  revoked: boolean;
};

/** The outcome of a registration: a cluster with its certificate (201), or a request waiting for approval (202). */
export type RegisterResult =
  | { kind: "registered"; response: RegisterResponse; clusterId: string; name: string }
  | { kind: "pending"; reply: PendingApprovalReply };

/** Checks the bearer token without consuming a use. Each failure has its own protocol code. */
export type RegistrationTrace = { sourceAddress: string | null; tokenId?: string };

const EXHAUSTED_MESSAGE = "The registration token has registered as many clusters as it may; ask an operator for a new one.";

// The two reads every registration makes, in raw SQL: through Prisma's models each cost several
// times as much of the main thread (its query compiler and result mapping).
const tokens = columns("RegistrationToken");
const cluster = columns("Cluster", "c");
const label = columns("ClusterLabel", "l");

/** The token as registration reads it: the columns the console shows, and the secret's hash. */
type TokenRow = Omit<TokenViewRow, "description" | "createdAt" | "requireApproval"> & {
  secretHash: string;
  /** Raw SQL: SQLite answers a boolean as 0 or 1. */
  requireApproval: boolean | number;
};

async function findToken(id: string): Promise<TokenRow | null> {
  const rows = await queryRows<TokenRow>(
    sql`SELECT ${tokens.list("id", "name", "secretHash", "expiresAt", "maxClusters", "usedClusters", "allowedLabels", "fixedLabels", "revokedAt", "clusterId", "requireApproval")}
        FROM ${tokens.table} WHERE ${tokens("id")} = ${id}`,
  );
  return rows[0] ?? null;
}

/** The cluster of that name with its labels, in one statement (a row per label, or one with none). */
async function findClusterByName(name: string): Promise<ExistingCluster | null> {
  const rows = await queryRows<Omit<ExistingCluster, "labels"> & { key: string | null; value: string | null }>(
    sql`SELECT ${cluster.list("id", "name", "phase", "caFingerprint", "apiServerUrl", "registeredAt")}, ${label.list("key", "value")}
        FROM ${cluster.table} LEFT JOIN ${label.table} ON ${label("clusterId")} = ${cluster("id")} WHERE ${cluster("name")} = ${name}`,
  );
  const first = rows[0];
  if (!first) return null;
  return {
    id: first.id,
    name: first.name,
    phase: first.phase,
    caFingerprint: first.caFingerprint,
    apiServerUrl: first.apiServerUrl,
    registeredAt: first.registeredAt,
    labels: rows.flatMap((r) => (r.key === null ? [] : [{ key: r.key, value: r.value ?? "" }])),
  };
}

async function authenticateToken(bearer: string | null, now: Date, trace: RegistrationTrace): Promise<TokenRecord> {
  if (!bearer) throw new ApiError("token_missing", "Send the registration token as 'Authorization: Bearer frt_...'.");
  const cred = parseCredential(bearer, TOKEN_PREFIX);
  if (!cred) throw new ApiError("token_invalid", "The registration token is malformed or unknown.");
  const token = await findToken(cred.id);
  if (!token || !digestsEqual(sha256Hex(cred.secret), token.secretHash)) {
    throw new ApiError("token_invalid", "The registration token is malformed or unknown.");
  }
  trace.tokenId = token.id;
  const status = tokenStatus(token, now);
  const requireApproval = Boolean(Number(token.requireApproval));
  if (status === "revoked" && !requireApproval) throw tokenRevoked();
  if (status === "expired" && !requireApproval) throw tokenExpired();
  return {
    id: token.id,
    name: token.name,
    allowedLabels: token.allowedLabels ? (JSON.parse(token.allowedLabels) as AllowedLabels) : null,
    fixedLabels: JSON.parse(token.fixedLabels) as Labels,
    clusterId: token.clusterId,
    // An expired token is not counted as used up: its uses no longer matter.
    exhausted: status === "exhausted",
    requireApproval,
    expired: status === "expired",
    revoked: status === "revoked",
  };
}

const tokenExpired = () => new ApiError("token_expired", "The registration token has expired; ask an operator for a new one.");
const tokenRevoked = () => new ApiError("token_revoked", "The registration token was revoked; ask an operator for a new one.");

function labelNotAllowed(outside: { key: string; value: string }): ApiError {
  return new ApiError("label_not_allowed", `The token does not allow the label ${outside.key}=${outside.value}.`, {
    label: outside.key,
    value: outside.value,
  });
}

/** The agent's labels against the token: inside its scope, and not fighting its fixed labels. */
function checkRequestedLabels(req: RegisterRequest, token: TokenRecord): Labels {
  const outside = labelOutsideScope(req.labels, token.allowedLabels);
  if (outside) throw labelNotAllowed(outside);
  const merged = mergeFixedLabels(req.labels, token.fixedLabels);
  if (merged.conflict) {
    throw new ApiError(
      "label_not_allowed",
      `The token fixes the label ${merged.conflict}=${labelValue(token.fixedLabels, merged.conflict)}; do not ask for another value.`,
      { label: merged.conflict },
    );
  }
  return merged.labels;
}

function checkRequired(labels: Labels, required: string[]): Labels {
  const missing = missingRequiredLabels(labels, required);
  if (missing.length) {
    throw new ApiError("missing_required_labels", `The cluster lacks the required labels: ${missing.join(", ")}.`, { missing });
  }
  return labels;
}

/** The CSR checked and a certificate for its key signed, in one signing-pool job. */
async function checkAndSignCsr(...args: Parameters<typeof checkCsrAndSign>) {
  try {
    return await checkCsrAndSign(...args);
  } catch (err) {
    if (err instanceof CsrError) throw new ApiError("invalid_csr", err.message);
    throw err;
  }
}

/** Is the CSR's key that of the cluster's current or last certificate, not revoked by an operator? */
async function hasKeptKey(clusterId: string, publicKeyPem: string, renewal: { now: Date; graceDays: number }): Promise<boolean> {
  const certs = await db().certificate.findMany({
    where: { clusterId },
    orderBy: { createdAt: "desc" },
    select: { serial: true, pem: true, createdAt: true, revokedAt: true, notAfter: true },
  });
  const revoked = await db().revokedCertificate.findMany({
    where: { serial: { in: certs.filter((c) => c.revokedAt).map((c) => c.serial) } },
    select: { serial: true, reason: true },
  });
  const reasons = new Map(revoked.map((r) => [r.serial, r.reason]));
  const candidates = keptKeyCandidates(
    certs.map((c) => ({ ...c, revokedReason: reasons.get(c.serial) ?? null })),
    renewal,
  );
  return candidates.some((c) => certifiesKey(c.pem, publicKeyPem));
}

async function replaceLabels(tx: Tx, clusterId: string, labels: Labels) {
  await tx.clusterLabel.deleteMany({ where: { clusterId } });
  const rows = Object.entries(labels).map(([key, value]) => ({ clusterId, key, value }));
  if (rows.length) await tx.clusterLabel.createMany({ data: rows });
}

type ExistingCluster = {
  id: string;
  name: string;
  phase: string;
  caFingerprint: string | null;
  apiServerUrl: string | null;
  registeredAt: Date | null;
  labels: { key: string; value: string }[];
};

/**
 * What a registration will do, decided before anything is written: a new cluster, the claim of a
 * pre-created one, or a re-registration, with its labels, its proof and whether it spends a use.
 */
type Plan =
  | { kind: "new"; labels: Labels; consumesUse: true }
  | { kind: "claim"; existing: ExistingCluster; labels: Labels; proof: "boundToken"; consumesUse: true }
  | { kind: "reregister"; existing: ExistingCluster; labels: Labels; proof: ReregistrationProof; consumesUse: boolean };

async function boundClusterName(clusterId: string): Promise<string | null> {
  const c = await db().cluster.findUnique({ where: { id: clusterId }, select: { name: true } });
  return c?.name ?? null;
}

async function planRegistration(
  req: RegisterRequest,
  token: TokenRecord,
  existing: ExistingCluster | null,
  publicKeyPem: string,
  required: string[],
  renewal: { now: Date; graceDays: number },
): Promise<Plan> {
  if (token.clusterId && token.clusterId !== existing?.id) {
    const bound = await boundClusterName(token.clusterId);
    throw new ApiError(
      "cluster_conflict",
      bound
        ? `This token is bound to the cluster ${bound} and registers only that name, not ${req.name}.`
        : `This token is bound to a cluster that no longer exists; it cannot register ${req.name}.`,
      { boundClusterId: token.clusterId },
    );
  }
  if (!existing) {
    if (token.exhausted) throw new ApiError("token_exhausted", EXHAUSTED_MESSAGE);
    return { kind: "new", labels: checkRequired(checkRequestedLabels(req, token), required), consumesUse: true };
  }
  if (existing.phase === "Deregistration" || existing.phase === "Draining") {
    throw new ApiError("cluster_conflict", `The cluster ${req.name} is being deregistered; finish or cancel that first.`);
  }
  const stored = Object.fromEntries(existing.labels.map((l) => [l.key, l.value]));
  if (existing.phase === "Provisioning") {
    if (!token.clusterId) {
      throw new ApiError(
        "cluster_conflict",
        `The cluster ${req.name} was pre-created by an admin; it is claimed only with the token bound to it (minted with it, or by Re-enrol on its page).`,
      );
    }
    if (token.exhausted) throw new ApiError("token_exhausted", EXHAUSTED_MESSAGE);
    // The admin's presets win over the agent's labels; the token's fixed labels over both.
    const relabelled = relabelForToken(stored, token, checkRequestedLabels(req, token));
    if (relabelled.outside) throw labelNotAllowed(relabelled.outside);
    return {
      kind: "claim",
      existing,
      labels: checkRequired(relabelled.labels, required),
      proof: "boundToken",
      consumesUse: true,
    };
  }
  const boundToCluster = token.clusterId === existing.id;
  const decision = reregistrationProof({
    boundToCluster,
    tokenHasUses: !token.exhausted,
    // Only looked up when it can matter: a bound token with a use left is proof enough.
    keptKey: boundToCluster && !token.exhausted ? false : await hasKeptKey(existing.id, publicKeyPem, renewal),
  });
  if ("refused" in decision) {
    if (decision.refused === "token_exhausted") throw new ApiError("token_exhausted", EXHAUSTED_MESSAGE);
    throw new ApiError(
      "cluster_conflict",
      `The name ${req.name} belongs to a registered cluster; registering it again needs the key of its current certificate or a token bound to it (Re-enrol on its page).`,
    );
  }
  // Sent labels are ignored: the cluster keeps its own (console edits stay), the token's fixed ones go over them.
  const relabelled = relabelForToken(stored, token);
  if (relabelled.outside) throw labelNotAllowed(relabelled.outside);
  return {
    kind: "reregister",
    existing,
    labels: checkRequired(relabelled.labels, required),
    proof: decision.proof,
    consumesUse: decision.consumesUse,
  };
}

/**
 * POST /api/agent/v1/register. Everything that can fail without writing is checked first; then
 * the token use, the cluster, its labels and its certificate are written in one transaction,
 * so a failure leaves no trace but the attempt log.
 */
export async function registerCluster(
  /** The bearer token the request carried, parsed by the protocol's dispatcher (null: none). */
  bearer: string | null,
  body: unknown,
  /** Where the request came from; tokenId is filled in as soon as the token is known, so a later failure can still be attributed to it. */
  trace: RegistrationTrace,
): Promise<RegisterResult> {
  const now = new Date();
  const token = await authenticateToken(bearer, now, trace);
  const req = parseWith(registerRequestSchema, body);
  const { matrix } = await getMatrix();
  if (!agentAccepted(matrix, req.agentVersion)) {
    throw new ApiError(
      "incompatible_agent",
      `Agent ${req.agentVersion} is not accepted by this control plane (accepted: ${matrix.acceptedAgentVersions}); install agent ${matrix.recommendedAgentVersion}.`,
      { agentVersion: req.agentVersion, accepted: matrix.acceptedAgentVersions, recommended: matrix.recommendedAgentVersion },
    );
  }
  const settings = await getSettings();
  // During a CA rollover the incoming CA signs; the answer carries every trusted CA.
  const cas = await caState();
  const answer = (clusterId: string, certificate: string): RegisterResponse => ({
    clusterId,
    certificate,
    caCertificate: cas.bundlePem,
    heartbeatIntervalSeconds: settings.heartbeatIntervalSeconds,
    heartbeatPath: "/api/agent/v1/heartbeat",
  });
  const existing = await findClusterByName(req.name);
  // Null: a re-registration or a claim, which the proof decides as for any token.
  if (token.requireApproval) {
    const waiting = await registerWithApproval(req, token, existing, settings, trace, now);
    if (waiting?.kind === "pending") return waiting;
    if (waiting?.kind === "collect") {
      const { clusterId, certificatePem } = waiting.collected;
      return { kind: "registered", response: answer(clusterId, certificatePem), clusterId, name: req.name };
    }
  }
  if (token.revoked) throw tokenRevoked();
  if (token.expired) throw tokenExpired();
  const clusterId = existing?.id ?? `cl_${randomId(16)}`;
  const ca = cas.issuing;
  // The CSR first (its key may be the proof that lets a known name register again), and signed in
  // the same job: signing is the expensive part, done before the transaction so writers are not
  // held up. A registration refused below drops its certificate unsent.
  const { csr, cert } = await checkAndSignCsr(ca, req.csr, {
    clusterId,
    validityDays: settings.certificateValidityDays,
    now,
  });
  const plan = await planRegistration(req, token, existing, csr.publicKeyPem, settings.requiredLabels, {
    now,
    graceDays: settings.certificateRenewalGraceDays,
  });
  if (plan.kind === "new") await refuseWhileWaiting(req.name, keyHashOf(csr.publicKeyPem), now, settings.deniedKeyCooldownHours);
  const { labels } = plan;
  const proof = plan.kind === "new" ? null : plan.proof;
  const actor: Actor = { type: "agent", id: token.id, label: `token:${token.name}` };

  const certificateRowWithoutCluster = {
    serial: cert.serial,
    fingerprint: cert.fingerprint,
    pem: cert.pem,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    issuerFingerprint: ca.fingerprint,
  };
  const certificateRow = { ...certificateRowWithoutCluster, clusterId };

  // A re-registering agent that could not read /version keeps the version last reported.
  const facts = {
    agentVersion: req.agentVersion,
    ...(req.kubernetesVersion ? { kubernetesVersion: req.kubernetesVersion } : {}),
    ...(req.clusterUid ? { clusterUid: req.clusterUid } : {}),
    registrationTokenId: token.id,
  };
  const phaseChange = (from: Phase | null, to: Phase, reason: string): PhaseChange => ({
    clusterId,
    clusterName: req.name,
    from,
    to,
    reason,
    at: now,
    // cluster.registered is published below, once the cluster's desired policies are known.
    publish: false,
  });
  const auditDetails = (extra: Record<string, unknown> = {}) => ({
    name: req.name,
    tokenId: token.id,
    ...(proof ? { proof, tokenUseConsumed: plan.consumesUse } : {}),
    ...(plan.kind === "claim" ? { claimed: true } : {}),
    certificateSerial: cert.serial,
    labels,
    ...extra,
  });

  if (plan.kind === "new") {
    // The common case, in one statement (PostgreSQL) or one short transaction (SQLite).
    await writeNewCluster({
      tokenId: token.id,
      now,
      cluster: {
        id: clusterId,
        name: req.name,
        caFingerprint: req.caFingerprint,
        apiServerUrl: req.apiServerUrl,
        agentVersion: req.agentVersion,
        kubernetesVersion: req.kubernetesVersion ?? null,
        clusterUid: req.clusterUid ?? null,
      },
      labels,
      certificate: certificateRowWithoutCluster,
      phase: phaseChange(null, "Registration", `registered with token ${token.name}`),
      audit: auditRow(actor, "cluster.register", { type: "cluster", id: clusterId }, auditDetails()),
      attempt: { sourceAddress: trace.sourceAddress },
    });
    rememberNewCertificate({ ...certificateRow, issuerFingerprint: ca.fingerprint });
  } else {
    // A claim or a re-registration: the same cluster id, a new certificate, the old ones revoked.
    await inTransaction(async (tx, afterCommit) => {
      if (plan.consumesUse) {
        // Lost the race for the last use (or the token was revoked a moment ago).
        if (!(await consumeTokenUse(tx, token.id, now)))
          throw new ApiError("token_exhausted", "The registration token has no uses left; ask an operator for a new one.");
      } else {
        // A kept-key re-registration spends nothing, but the token must still be valid now.
        const valid = await tx.registrationToken.count({ where: { id: token.id, revokedAt: null, expiresAt: { gt: now } } });
        if (valid === 0)
          throw new ApiError("token_revoked", "The registration token was revoked a moment ago; ask an operator for a new one.");
      }
      // A bound token is an admin's word that this agent is the cluster (perhaps rebuilt): it brings
      // its reported identity. A kept key proves the same agent: what it registered with stays.
      const takesIdentity = plan.kind !== "reregister" || plan.proof === "boundToken";
      const identity = takesIdentity ? { ...facts, caFingerprint: req.caFingerprint, apiServerUrl: req.apiServerUrl } : facts;
      const auditIdentity: Record<string, unknown> = {};
      const { existing } = plan;
      // Same id, new certificate, old ones revoked; unless someone changed the cluster meanwhile: a
      // claim needs it still Provisioning, a re-registration needs it not being removed. (The
      // sweeper moving a cluster from Registration to Active at its first heartbeat is no reason
      // to refuse an agent's retry.) The row stays locked until commit, so the phase read below holds.
      const claimed = await tx.cluster.updateMany({
        where:
          plan.kind === "claim"
            ? { id: existing.id, phase: "Provisioning" }
            : { id: existing.id, phase: { notIn: ["Provisioning", "Draining", "Deregistration"] } },
        data: {
          ...identity,
          registeredAt: existing.registeredAt ?? now,
        },
      });
      if (claimed.count === 0)
        throw new ApiError("cluster_conflict", `The cluster ${req.name} changed while registering; try again.`);
      const phaseNow = (await tx.cluster.findUniqueOrThrow({ where: { id: existing.id }, select: { phase: true } }))
        .phase as Phase;
      const revoked = await revokeCertificates(tx, afterCommit, {
        clusterId,
        certificates: "current",
        kind: SUPERSEDED_REASON,
        note: "superseded by re-registration",
        at: now,
      });
      await replaceLabels(tx, clusterId, labels);
      await tx.certificate.create({ data: certificateRow });
      if (plan.kind === "reregister") {
        for (const field of ["caFingerprint", "apiServerUrl"] as const) {
          if (existing[field] === req[field]) continue;
          auditIdentity[field] = takesIdentity
            ? { from: existing[field], to: req[field] }
            : { kept: existing[field], reported: req[field] };
        }
      }
      // A claim moves the pre-created cluster out of Provisioning (the update above already checked
      // its phase); a re-registration keeps its phase and records why.
      await changePhase(
        tx,
        afterCommit,
        phaseChange(
          phaseNow,
          plan.kind === "reregister" ? phaseNow : "Registration",
          plan.kind === "reregister"
            ? `re-registered (proof: ${plan.proof}) with token ${token.name}; new certificate issued`
            : `claimed (proof: boundToken) with token ${token.name}`,
        ),
      );
      await recordAudit(
        tx,
        actor,
        plan.kind === "reregister" ? "cluster.reregister" : "cluster.register",
        { type: "cluster", id: clusterId },
        auditDetails({
          ...(Object.keys(auditIdentity).length ? { identity: auditIdentity } : {}),
          ...(revoked.length ? { revokedCertificates: revoked } : {}),
        }),
      );
      await tx.registrationAttempt.create({
        data: { result: "ok", sourceAddress: trace.sourceAddress, tokenId: token.id, clusterName: req.name, clusterId },
      });
    });
  }

  const reregistered = plan.kind === "reregister";
  await recomputeDesiredRevisions([clusterId]);
  log.info("cluster registered", { clusterId, name: req.name, tokenId: token.id, reregistered, proof });
  publish({ type: "cluster.registered", clusterId, name: req.name, reregistered, at: now.toISOString() });
  return { kind: "registered", response: answer(clusterId, cert.pem), clusterId, name: req.name };
}

function checkCsr(pem: string): ValidatedCsr {
  try {
    return validateCsr(pem);
  } catch (err) {
    if (err instanceof CsrError) throw new ApiError("invalid_csr", err.message);
    throw err;
  }
}

/**
 * A token that requires approval: a key that asked for the name before is answered from its
 * request (waiting, denied, expired, or its certificate to collect); a new cluster is checked in
 * full (token, scope, labels, CSR, not signed yet) and recorded as a pending request, beside any
 * other key's request for the name. Null: not a case for approval
 * (a re-registration with proof, a claim with a bound token), or nothing left to collect: the
 * caller registers it as usual.
 */
async function registerWithApproval(
  req: RegisterRequest,
  token: TokenRecord,
  existing: ExistingCluster | null,
  settings: Awaited<ReturnType<typeof getSettings>>,
  trace: RegistrationTrace,
  now: Date,
): Promise<RepeatAnswer | null> {
  const csr = checkCsr(req.csr);
  const keyHash = keyHashOf(csr.publicKeyPem);
  const ask = { tokenId: token.id, revoked: token.revoked, cooldownHours: settings.deniedKeyCooldownHours };
  const answer = await answerKnownKey(req.name, keyHash, ask, trace.sourceAddress, now);
  if (answer) return answer;
  if (token.revoked) throw tokenRevoked();
  if (existing) return null;
  if (token.expired) throw tokenExpired();
  // A used-up token still adds a candidate for a name one of its requests holds a use for.
  const exhausted = token.exhausted && !(await holdsUseFor(token.id, req.name));
  const plan = await planRegistration(req, { ...token, exhausted }, null, csr.publicKeyPem, settings.requiredLabels, {
    now,
    graceDays: settings.certificateRenewalGraceDays,
  });
  return recordPendingRequest({
    req,
    token,
    keyHash,
    labels: plan.labels,
    sourceAddress: trace.sourceAddress,
    now,
  });
}
