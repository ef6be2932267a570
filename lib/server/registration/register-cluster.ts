import "server-only";
import { registerRequestSchema, type RegisterRequest } from "@/lib/domain/agent-protocol";
import { agentAccepted } from "@/lib/domain/compatibility";
import type { PendingApprovalReply } from "@/lib/domain/registration-approval";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { randomId } from "@/lib/server/auth/secrets";
import { log } from "@/lib/server/log";
import { caState } from "@/lib/server/pki/current-ca";
import { issueCertificate } from "@/lib/server/pki/issue-certificate";
import { askApproval } from "@/lib/server/registration-requests/ask-approval";
import { keyHashOf } from "@/lib/server/registration-requests/key-hash";
import { refuseWhileWaiting } from "@/lib/server/registration-requests/refuse-while-waiting";
import { getSettings } from "@/lib/server/settings/settings";
import { tokenExpired, tokenRevoked } from "@/lib/server/tokens/token-refusals";
import { getMatrix } from "@/lib/server/versions/compatibility";
import { authenticateToken, type RegistrationTrace } from "./authenticate-token";
import { findClusterByName, planRegistration } from "./plan-registration";
import { writeRegistration } from "./write-registration";

export type { RegistrationTrace };

export type RegisterResponse = {
  clusterId: string;
  certificate: string;
  caCertificate: string;
  heartbeatIntervalSeconds: number;
  heartbeatPath: "/api/agent/v1/heartbeat";
};

/** The outcome of a registration: a cluster with its certificate (201), or a request waiting for approval (202). */
export type RegisterResult =
  | { kind: "registered"; response: RegisterResponse; clusterId: string; name: string }
  | { kind: "pending"; reply: PendingApprovalReply };

/**
 * POST /api/agent/v1/register, in steps: authenticate the token, parse the request, route a
 * token that requires approval, sign, plan, write, reply. Everything that can fail without
 * writing is checked first; then the token use, the cluster, its labels and its certificate are
 * written in one transaction, so a failure leaves no trace but the attempt log.
 */
export async function registerCluster(
  /** The bearer token the request carried, parsed by the protocol's dispatcher (null: none). */
  bearer: string | null,
  body: unknown,
  trace: RegistrationTrace,
): Promise<RegisterResult> {
  const now = new Date();
  const token = await authenticateToken(bearer, now, trace);
  const req = parseWith(registerRequestSchema, body);
  await checkAgentVersion(req);
  const settings = await getSettings();
  // During a CA rollover the incoming CA signs; the answer carries every trusted CA.
  const cas = await caState();
  const reply = (clusterId: string, certificate: string): RegisterResult => ({
    kind: "registered",
    response: {
      clusterId,
      certificate,
      caCertificate: cas.bundlePem,
      heartbeatIntervalSeconds: settings.heartbeatIntervalSeconds,
      heartbeatPath: "/api/agent/v1/heartbeat",
    },
    clusterId,
    name: req.name,
  });
  const existing = await findClusterByName(req.name);

  if (token.requireApproval) {
    const waiting = await askApproval(req, token, existing, settings, trace, now);
    if (waiting?.kind === "pending") return waiting;
    if (waiting?.kind === "collect") return reply(waiting.collected.clusterId, waiting.collected.certificatePem);
    // Null: a re-registration or a claim, which the proof decides as for any token.
  }
  if (token.revoked) throw tokenRevoked();
  if (token.expired) throw tokenExpired();

  // Signed before the plan: the CSR's key may be the proof that lets a known name register
  // again, and signing is the expensive part, done before the transaction so writers are not
  // held up. A registration refused below drops its certificate unsent.
  const clusterId = existing?.id ?? `cl_${randomId(16)}`;
  const { csr, row: certificate } = await issueCertificate(cas.issuing, req.csr, {
    clusterId,
    validityDays: settings.certificateValidityDays,
    now,
  });
  const plan = await planRegistration(req, token, existing, csr.publicKeyPem, {
    requiredLabels: settings.requiredLabels,
    now,
    graceDays: settings.certificateRenewalGraceDays,
  });
  if (plan.kind === "new") await refuseWhileWaiting(req.name, keyHashOf(csr.publicKeyPem), now, settings.deniedKeyCooldownHours);

  await writeRegistration({
    plan,
    clusterId,
    now,
    token,
    agent: {
      name: req.name,
      caFingerprint: req.caFingerprint,
      apiServerUrl: req.apiServerUrl,
      agentVersion: req.agentVersion,
      kubernetesVersion: req.kubernetesVersion ?? null,
      clusterUid: req.clusterUid ?? null,
    },
    certificate,
    actor: { type: "agent", id: token.id, label: `token:${token.name}` },
    attempt: { sourceAddress: trace.sourceAddress },
  });
  log.info("cluster registered", {
    clusterId,
    name: req.name,
    tokenId: token.id,
    reregistered: plan.kind === "reregister",
    proof: plan.proof,
  });
  return reply(clusterId, certificate.pem);
}

async function checkAgentVersion(req: RegisterRequest): Promise<void> {
  const { matrix } = await getMatrix();
  if (agentAccepted(matrix, req.agentVersion)) return;
  throw new ApiError(
    "incompatible_agent",
    `Agent ${req.agentVersion} is not accepted by this control plane (accepted: ${matrix.acceptedAgentVersions}); install agent ${matrix.recommendedAgentVersion}.`,
    { agentVersion: req.agentVersion, accepted: matrix.acceptedAgentVersions, recommended: matrix.recommendedAgentVersion },
  );
}
