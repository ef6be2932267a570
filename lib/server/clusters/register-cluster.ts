import "server-only";
import { randomId, digestsEqual, parseCredential, sha256Hex } from "@/lib/server/auth/secrets";
import { registerRequestSchema, type RegisterRequest } from "@/lib/domain/agent-protocol";
import { missingRequiredLabels, type Labels } from "@/lib/domain/labels";
import { labelOutsideScope, mergeFixedLabels, tokenStatus, type AllowedLabels } from "@/lib/domain/tokens";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { db, type Tx } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { getSettings } from "@/lib/server/settings/settings";
import { caState } from "@/lib/server/pki/current-ca";
import { CsrError, validateCsr } from "@/lib/server/pki/csr";
import { issueClientCertificate } from "@/lib/server/pki/client-certificate";
import { publish } from "@/lib/server/events/bus";
import { log } from "@/lib/server/log";
import { TOKEN_PREFIX } from "@/lib/server/tokens/mint-token";
import { forgetCertificates } from "@/lib/server/agents/agent-identity";
import { recomputeDesiredRevisions } from "@/lib/server/policies/policies";
import { getMatrix } from "@/lib/server/versions/compatibility";
import { agentAccepted } from "@/lib/domain/compatibility";

export type RegisterResponse = {
  clusterId: string;
  certificate: string;
  caCertificate: string;
  heartbeatIntervalSeconds: number;
  heartbeatPath: "/api/agent/v1/heartbeat";
};

type TokenRecord = { id: string; name: string; allowedLabels: AllowedLabels | null; fixedLabels: Labels };

/** Checks the bearer token without consuming a use. Each failure has its own protocol code. */
export type RegistrationTrace = { sourceAddress: string | null; tokenId?: string };

async function authenticateToken(authorization: string | null, now: Date, trace: RegistrationTrace): Promise<TokenRecord> {
  const m = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (!m) throw new ApiError("token_missing", "Send the registration token as 'Authorization: Bearer frt_...'.");
  const cred = parseCredential(m[1]!, TOKEN_PREFIX);
  if (!cred) throw new ApiError("token_invalid", "The registration token is malformed or unknown.");
  const token = await db().registrationToken.findUnique({ where: { id: cred.id }, omit: { secretHash: false } });
  if (!token || !digestsEqual(sha256Hex(cred.secret), token.secretHash)) {
    throw new ApiError("token_invalid", "The registration token is malformed or unknown.");
  }
  trace.tokenId = token.id;
  const status = tokenStatus(token, now);
  if (status === "revoked")
    throw new ApiError("token_revoked", "The registration token was revoked; ask an operator for a new one.");
  if (status === "expired")
    throw new ApiError("token_expired", "The registration token has expired; ask an operator for a new one.");
  if (status === "exhausted") {
    throw new ApiError(
      "token_exhausted",
      "The registration token has registered as many clusters as it may; ask an operator for a new one.",
    );
  }
  return {
    id: token.id,
    name: token.name,
    allowedLabels: token.allowedLabels ? (JSON.parse(token.allowedLabels) as AllowedLabels) : null,
    fixedLabels: JSON.parse(token.fixedLabels) as Labels,
  };
}

/** `preset`: labels an admin gave a pre-created (Provisioning) cluster; the agent's and the token's go over them. */
function checkLabels(req: RegisterRequest, token: TokenRecord, required: string[], preset: Labels): Labels {
  const outside = labelOutsideScope(req.labels, token.allowedLabels);
  if (outside) {
    throw new ApiError("label_not_allowed", `The token does not allow the label ${outside.key}=${outside.value}.`, {
      label: outside.key,
      value: outside.value,
    });
  }
  const merged = mergeFixedLabels(req.labels, token.fixedLabels);
  if (merged.conflict) {
    throw new ApiError(
      "label_not_allowed",
      `The token fixes the label ${merged.conflict}=${token.fixedLabels[merged.conflict]}; do not ask for another value.`,
      {
        label: merged.conflict,
      },
    );
  }
  const labels = { ...preset, ...merged.labels };
  const missing = missingRequiredLabels(labels, required);
  if (missing.length) {
    throw new ApiError("missing_required_labels", `The cluster lacks the required labels: ${missing.join(", ")}.`, { missing });
  }
  return labels;
}

async function replaceLabels(tx: Tx, clusterId: string, labels: Labels) {
  await tx.clusterLabel.deleteMany({ where: { clusterId } });
  const rows = Object.entries(labels).map(([key, value]) => ({ clusterId, key, value }));
  if (rows.length) await tx.clusterLabel.createMany({ data: rows });
}

/**
 * POST /api/agent/v1/register. Everything that can fail without writing is checked first; then
 * the token use, the cluster, its labels and its certificate are written in one transaction,
 * so a failure leaves no trace but the attempt log.
 */
export async function registerCluster(
  authorization: string | null,
  body: unknown,
  /** Where the request came from; tokenId is filled in as soon as the token is known, so a later failure can still be attributed to it. */
  trace: RegistrationTrace,
): Promise<{ response: RegisterResponse; clusterId: string; name: string }> {
  const now = new Date();
  const token = await authenticateToken(authorization, now, trace);
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
  const existing = await db().cluster.findUnique({ where: { name: req.name }, include: { labels: true } });
  const preset = existing?.phase === "Provisioning" ? Object.fromEntries(existing.labels.map((l) => [l.key, l.value])) : {};
  const labels = checkLabels(req, token, settings.requiredLabels, preset);

  let csr;
  try {
    csr = validateCsr(req.csr);
  } catch (err) {
    if (err instanceof CsrError) throw new ApiError("invalid_csr", err.message);
    throw err;
  }

  if (existing?.caFingerprint && existing.caFingerprint !== req.caFingerprint) {
    throw new ApiError("cluster_conflict", `The name ${req.name} belongs to a cluster with a different CA fingerprint.`);
  }
  if (existing && (existing.phase === "Deregistration" || existing.phase === "Draining")) {
    throw new ApiError("cluster_conflict", `The cluster ${req.name} is being deregistered; finish or cancel that first.`);
  }

  // Signing is the expensive part: do it before the transaction so writers are not held up.
  const clusterId = existing?.id ?? `cl_${randomId(16)}`;
  // During a CA rollover the incoming CA signs; the answer carries every trusted CA.
  const cas = await caState();
  const ca = cas.issuing;
  const cert = issueClientCertificate(ca, {
    publicKeyPem: csr.publicKeyPem,
    clusterId,
    validityDays: settings.certificateValidityDays,
    now,
  });
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

  const revokedSerials = await db().$transaction(async (tx) => {
    const consumed = await tx.registrationToken.updateMany({
      where: {
        id: token.id,
        revokedAt: null,
        expiresAt: { gt: now },
        usedClusters: { lt: db().registrationToken.fields.maxClusters },
      },
      data: { usedClusters: { increment: 1 } },
    });
    if (consumed.count === 0) {
      // Lost the race for the last use (or the token was revoked a moment ago).
      throw new ApiError("token_exhausted", "The registration token has no uses left; ask an operator for a new one.");
    }
    const identity = {
      caFingerprint: req.caFingerprint,
      apiServerUrl: req.apiServerUrl,
      agentVersion: req.agentVersion,
      kubernetesVersion: req.kubernetesVersion,
      registrationTokenId: token.id,
    };
    let revoked: string[] = [];
    if (existing) {
      // The same cluster again (same name and CA): same id, new certificate, old ones revoked.
      const claimed = await tx.cluster.updateMany({
        where: { id: existing.id, OR: [{ caFingerprint: null }, { caFingerprint: req.caFingerprint }] },
        data: {
          ...identity,
          registeredAt: existing.registeredAt ?? now,
          ...(existing.phase === "Provisioning" ? { phase: "Registration", phaseChangedAt: now } : {}),
        },
      });
      if (claimed.count === 0)
        throw new ApiError("cluster_conflict", `The name ${req.name} was just claimed by another cluster.`);
      const old = await tx.certificate.findMany({ where: { clusterId, revokedAt: null }, select: { serial: true } });
      revoked = old.map((c) => c.serial);
      if (revoked.length) {
        await tx.certificate.updateMany({
          where: { serial: { in: revoked } },
          data: { revokedAt: now, revokeReason: "superseded by re-registration" },
        });
        await tx.revokedCertificate.createMany({ data: revoked.map((serial) => ({ serial, clusterId, reason: "superseded" })) });
      }
      await replaceLabels(tx, clusterId, labels);
      await tx.certificate.create({ data: certificateRow });
    } else {
      // One nested write: the cluster, its labels and its certificate.
      await tx.cluster.create({
        data: {
          id: clusterId,
          name: req.name,
          ...identity,
          registeredAt: now,
          phase: "Registration",
          phaseChangedAt: now,
          status: "Pending",
          statusChangedAt: now,
          labels: { createMany: { data: Object.entries(labels).map(([key, value]) => ({ key, value })) } },
          certificates: { create: certificateRowWithoutCluster },
        },
      });
    }
    await tx.clusterEvent.create({
      data: {
        clusterId,
        clusterName: req.name,
        kind: "phase",
        fromValue: existing?.phase ?? null,
        toValue: existing && existing.phase !== "Provisioning" ? existing.phase : "Registration",
        reason: existing?.caFingerprint
          ? "re-registered with the same CA; new certificate issued"
          : `registered with token ${token.name}`,
        at: now,
      },
    });
    await recordAudit(
      tx,
      actor,
      existing?.caFingerprint ? "cluster.reregister" : "cluster.register",
      { type: "cluster", id: clusterId },
      {
        name: req.name,
        tokenId: token.id,
        certificateSerial: cert.serial,
        labels,
        ...(revoked.length ? { revokedCertificates: revoked } : {}),
      },
    );
    await tx.registrationAttempt.create({
      data: { result: "ok", sourceAddress: trace.sourceAddress, tokenId: token.id, clusterName: req.name, clusterId },
    });
    return revoked;
  });

  if (revokedSerials.length) forgetCertificates(revokedSerials);
  await recomputeDesiredRevisions([clusterId]);
  log.info("cluster registered", { clusterId, name: req.name, tokenId: token.id, reregistered: !!existing?.caFingerprint });
  publish({
    type: "cluster.registered",
    clusterId,
    name: req.name,
    reregistered: !!existing?.caFingerprint,
    at: now.toISOString(),
  });
  return {
    response: {
      clusterId,
      certificate: cert.pem,
      caCertificate: cas.bundlePem,
      heartbeatIntervalSeconds: settings.heartbeatIntervalSeconds,
      heartbeatPath: "/api/agent/v1/heartbeat",
    },
    clusterId,
    name: req.name,
  };
}
