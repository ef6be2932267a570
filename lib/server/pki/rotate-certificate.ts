import "server-only";
import { rotateRequestSchema } from "@/lib/domain/agent-protocol";
import { withinRenewalGrace } from "@/lib/domain/certificates";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { getSettings } from "@/lib/server/settings/settings";
import type { AgentIdentity } from "@/lib/server/agent-port/agent-identity";
import { fleetCa } from "./current-ca";
import { issueCertificate, storeCertificate } from "./issue-certificate";

/**
 * POST /api/agent/v1/rotate: a new certificate for the caller's cluster. The presented one stays
 * valid until the new one is first used (retire-certificates.ts) or expires.
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
  const { row } = await issueCertificate(await fleetCa(), csr, {
    clusterId: agent.clusterId,
    validityDays: settings.certificateValidityDays,
  });
  await inTransaction(async (tx) => {
    const cluster = await tx.cluster.findUnique({ where: { id: agent.clusterId }, select: { name: true } });
    if (!cluster)
      throw new ApiError("cluster_deregistered", "This cluster was deregistered; stop the agent and delete its state.");
    await storeCertificate(tx, row);
    await recordAudit(
      tx,
      { type: "agent", id: agent.clusterId, label: cluster.name },
      "certificate.rotate",
      { type: "cluster", id: agent.clusterId },
      {
        previousSerial: agent.serial,
        ...(agent.expired ? { renewedExpired: agent.notAfter.toISOString() } : {}),
        serial: row.serial,
        notAfter: row.notAfter.toISOString(),
      },
    );
  });
  return { certificate: row.pem };
}
