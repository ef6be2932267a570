import "server-only";
import { rotateRequestSchema } from "@/lib/domain/agent-protocol";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { db } from "@/lib/server/db/client";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { getSettings } from "@/lib/server/settings/settings";
import type { AgentIdentity } from "@/lib/server/agent-port/agent-identity";
import { fleetCa } from "@/lib/server/pki/current-ca";
import { CsrError } from "@/lib/server/pki/csr";
import { checkCsrAndSign } from "@/lib/server/pki/signing-pool";
import { withinRenewalGrace } from "@/lib/domain/certificates";

/**
 * POST /api/agent/v1/rotate: a new certificate for the caller's cluster. The presented one stays
 * valid until the new one is first used (agent-identity.ts markFirstUse) or expires.
 */
export async function rotateCertificate(agent: AgentIdentity, body: unknown): Promise<{ certificate: string }> {
  const settings = await getSettings();
  if (agent.expired && !withinRenewalGrace(agent.notAfter, settings.certificateRenewalGraceDays, new Date())) {
    throw new ApiError(
      "client_certificate_required",
      `This client certificate expired more than ${settings.certificateRenewalGraceDays} days ago (the renewal grace); re-enrol the cluster with a token bound to it.`,
    );
  }
  const { csr } = parseWith(rotateRequestSchema, body);
  const ca = await fleetCa();
  let cert;
  try {
    ({ cert } = await checkCsrAndSign(ca, csr, {
      clusterId: agent.clusterId,
      validityDays: settings.certificateValidityDays,
    }));
  } catch (err) {
    if (err instanceof CsrError) throw new ApiError("invalid_csr", err.message);
    throw err;
  }
  await db().$transaction(async (tx) => {
    const cluster = await tx.cluster.findUnique({ where: { id: agent.clusterId }, select: { name: true } });
    if (!cluster)
      throw new ApiError("cluster_deregistered", "This cluster was deregistered; stop the agent and delete its state.");
    await tx.certificate.create({
      data: {
        serial: cert.serial,
        clusterId: agent.clusterId,
        fingerprint: cert.fingerprint,
        pem: cert.pem,
        notBefore: cert.notBefore,
        notAfter: cert.notAfter,
        issuerFingerprint: ca.fingerprint,
      },
    });
    await recordAudit(
      tx,
      { type: "agent", id: agent.clusterId, label: cluster.name },
      "certificate.rotate",
      { type: "cluster", id: agent.clusterId },
      {
        previousSerial: agent.serial,
        ...(agent.expired ? { renewedExpired: agent.notAfter.toISOString() } : {}),
        serial: cert.serial,
        notAfter: cert.notAfter.toISOString(),
      },
    );
  });
  return { certificate: cert.pem };
}
