import "server-only";
import { processSingleton } from "@/lib/server/process-singletons";
import { db } from "@/lib/server/db/client";
import { revocationStatements } from "@/lib/server/pki/revoke-certificates";
import { ApiError } from "@/lib/server/api/errors";
import { Snapshot } from "./snapshot";

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

type Entry = {
  serial: string;
  clusterId: string;
  revoked: boolean;
  used: boolean;
  notAfter: Date;
  issuerFingerprint: string | null;
  /** The first certificate of a new cluster (rememberNewCertificate): at its first use there is nothing earlier to retire. */
  firstOfCluster?: boolean;
};

// Heartbeats arrive thousands of times a second and the certificate behind them rarely
// changes, so certificates are cached by fingerprint. Every revocation (superseded, rotated,
// deregistered) writes a RevokedCertificate row; this instance reads the new ones at most a
// second old and evicts them, so a revocation made on any instance applies everywhere within
// about a second, and at once on the instance that made it (forgetCertificates).
const REVOCATION_POLL_MS = 1000;

type State = { cache: Map<string, Entry>; revocations: Snapshot<Date> };
function state(): State {
  return processSingleton<State>("agent-identity", () => ({
    cache: new Map(),
    revocations: new Snapshot(async (since) => {
      // Overlap by a few seconds: rows committed late with an earlier timestamp still count.
      const from = since ? new Date(since.getTime() - 5000) : new Date();
      const rows = await db().revokedCertificate.findMany({
        where: { revokedAt: { gte: from } },
        select: { serial: true, revokedAt: true },
      });
      if (rows.length) forgetCertificates(rows.map((r) => r.serial));
      return rows.reduce((max, r) => (r.revokedAt > max ? r.revokedAt : max), since ?? from);
    }, REVOCATION_POLL_MS),
  }));
}

export function forgetCertificates(serials: string[]) {
  const set = new Set(serials);
  const { cache } = state();
  for (const [fp, e] of cache) if (set.has(e.serial)) cache.delete(fp);
}

export function forgetCluster(clusterId: string) {
  const { cache } = state();
  for (const [fp, e] of cache) if (e.clusterId === clusterId) cache.delete(fp);
}

function remember(fingerprint: string, entry: Entry) {
  const { cache } = state();
  if (cache.size > 200_000) cache.clear();
  cache.set(fingerprint, entry);
}

/**
 * A new cluster's certificate, cached as it is issued: its first heartbeat, which follows within a
 * second or two, then needs no lookup and marks its first use with one update, which is what a
 * registration wave of thousands of new clusters needs. Only for a cluster registered just now, which has no other certificate.
 */
export function rememberNewCertificate(cert: {
  fingerprint: string;
  serial: string;
  clusterId: string;
  notAfter: Date;
  issuerFingerprint: string;
}) {
  const { fingerprint, ...rest } = cert;
  remember(fingerprint, { ...rest, revoked: false, used: false, firstOfCluster: true });
}

async function lookup(fingerprint: string): Promise<Entry | null> {
  const s = state();
  await s.revocations.get();
  const hit = s.cache.get(fingerprint);
  if (hit) return hit;
  const cert = await db().certificate.findUnique({
    where: { fingerprint },
    select: { serial: true, clusterId: true, revokedAt: true, firstUsedAt: true, notAfter: true, issuerFingerprint: true },
  });
  if (!cert) return null;
  const entry: Entry = {
    serial: cert.serial,
    clusterId: cert.clusterId,
    revoked: !!cert.revokedAt,
    used: !!cert.firstUsedAt,
    notAfter: cert.notAfter,
    issuerFingerprint: cert.issuerFingerprint,
  };
  remember(fingerprint, entry);
  return entry;
}

/**
 * The cluster behind a request on the agent port, or the protocol's error for why there is none.
 * `acceptExpired`: rotate's renewal grace (the caller checks how long ago it expired).
 */
export async function agentIdentity(
  headers: Pick<Headers, "get">,
  options: { acceptExpired?: boolean } = {},
): Promise<AgentIdentity> {
  const fingerprint = headers.get(IDENTITY_HEADERS.fingerprint);
  const serial = headers.get(IDENTITY_HEADERS.serial);
  if (!fingerprint || !serial) {
    throw new ApiError(
      "client_certificate_required",
      "Present the client certificate issued at registration (mutual TLS on the agent port).",
    );
  }
  const entry = await lookup(fingerprint);
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
  const expired = headers.get(IDENTITY_HEADERS.expired) === "1";
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
  const cached = state().cache.get(agent.fingerprint);
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
