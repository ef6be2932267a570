import "server-only";
import { db } from "@/lib/server/db/client";
import { cachedCertificate } from "@/lib/server/pki/certificate-cache";
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
