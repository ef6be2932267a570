import "server-only";
import { db } from "@/lib/server/db/client";
import { cachedCertificate, forgetCertificates, peekCachedCertificate } from "@/lib/server/pki/certificate-cache";
import { revocationStatements } from "@/lib/server/pki/revoke-certificates";
import { ApiError } from "@/lib/server/api/errors";

/**
 * Headers through which the custom server hands facts about the connection to the app: a verified
 * client certificate, the socket's peer address, and that the request came in on the agent port.
 * Only the custom server sets them, after stripping any inbound copies on every port.
 */
export const IDENTITY_HEADERS = {
  fingerprint: "x-fleet-client-fingerprint",
  serial: "x-fleet-client-serial",
  remoteAddress: "x-fleet-remote-address",
  agentPort: "x-fleet-agent-port",
  /** Set when the certificate chains to a fleet CA but has expired (rotate's renewal grace). */
  expired: "x-fleet-client-expired",
} as const;

export type AgentIdentity = {
  clusterId: string;
  serial: string;
  fingerprint: string;
  firstUse: boolean;
  notAfter: Date;
  /** Past notAfter: only rotate accepts such an identity (agentIdentity's `acceptExpired`). */
  expired: boolean;
  /** The fleet CA that signed it; null for certificates from before CA rollovers existed. */
  issuerFingerprint: string | null;
};

/**
 * The cluster behind a request on the agent port, or the protocol's error for why there is none.
 * `acceptExpired`: rotate's renewal grace (the caller checks how long ago it expired). Revocation
 * and expiry are judged for this request at `now`, not once per connection: a kept-alive
 * connection outlives a certificate revoked or expired while it is open.
 */
export async function agentIdentity(
  headers: Pick<Headers, "get">,
  options: { acceptExpired?: boolean; now?: number } = {},
): Promise<AgentIdentity> {
  const now = options.now ?? Date.now();
  const fingerprint = headers.get(IDENTITY_HEADERS.fingerprint);
  const serial = headers.get(IDENTITY_HEADERS.serial);
  if (!fingerprint || !serial) {
    throw new ApiError(
      "client_certificate_required",
      "Present the client certificate issued at registration (mutual TLS on the agent port).",
    );
  }
  const entry = await cachedCertificate(fingerprint);
  if (!entry) {
    const revoked = await db().revokedCertificate.findUnique({ where: { serial } });
    if (revoked?.reason === "deregistered") {
      throw new ApiError("cluster_deregistered", "This cluster was deregistered; stop the agent and delete its state.");
    }
    if (revoked)
      throw new ApiError("certificate_revoked", "This client certificate was revoked; register again with a new token.");
    throw new ApiError("client_certificate_required", "This client certificate was not issued by this fleet.");
  }
  if (entry.revoked)
    throw new ApiError("certificate_revoked", "This client certificate was revoked; use the newest one or register again.");
  const expired = headers.get(IDENTITY_HEADERS.expired) === "1" || now > entry.notAfter.getTime();
  if (expired && !options.acceptExpired) {
    throw new ApiError(
      "client_certificate_required",
      "This client certificate has expired; renew it through POST /api/agent/v1/rotate within the renewal grace, or re-enrol with a bound token.",
    );
  }
  return {
    clusterId: entry.clusterId,
    serial: entry.serial,
    fingerprint,
    firstUse: !entry.used,
    notAfter: entry.notAfter,
    expired,
    issuerFingerprint: entry.issuerFingerprint,
  };
}

/**
 * The first use of a rotated certificate retires the ones before it (docs/protocol.md, rotate): the old
 * certificate stays valid only until the new one is seen.
 *
 * No interactive transaction: a reconnect storm of first heartbeats held a pooled connection per
 * certificate across several round trips and ran the pool dry (500s). The common first use (a new
 * cluster, nothing before it) is one conditional update; with older certificates to retire, the
 * mark and the revocation go as one batch. Two first heartbeats at once: on PostgreSQL the second
 * batch's mark waits for the first's row lock, so its revocation statements run after the first
 * committed and rewrite the same rows; on SQLite writes are serial. Either way the result is the one
 * either alone would give.
 */
export async function markFirstUse(agent: AgentIdentity): Promise<void> {
  const now = new Date();
  const client = db();
  const cached = peekCachedCertificate(agent.fingerprint);
  const mark = () =>
    client.certificate.updateMany({
      where: { serial: agent.serial, firstUsedAt: null },
      data: { firstUsedAt: now },
    });
  if (cached?.firstOfCluster && cached.serial === agent.serial) {
    // A new cluster's only certificate: nothing before it to look for.
    await mark();
    cached.used = true;
    return;
  }
  const current = await client.certificate.findUnique({
    where: { serial: agent.serial },
    select: { createdAt: true, firstUsedAt: true },
  });
  if (current && !current.firstUsedAt) {
    const prior = (
      await client.certificate.findMany({
        where: {
          clusterId: agent.clusterId,
          revokedAt: null,
          serial: { not: agent.serial },
          createdAt: { lte: current.createdAt },
        },
        select: { serial: true },
      })
    ).map((c) => c.serial);
    if (!prior.length) await mark();
    else {
      const revocation = {
        clusterId: agent.clusterId,
        certificates: prior,
        kind: "superseded",
        note: "superseded by rotation",
        at: now,
      } as const;
      await client.$transaction([mark(), ...revocationStatements(client, revocation)]);
      forgetCertificates(prior);
    }
  }
  // The cached entry of the one in use still says "never used".
  forgetCertificates([agent.serial]);
}
