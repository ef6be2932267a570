import "server-only";
import { Snapshot } from "@/lib/server/cache/snapshot";
import { db } from "@/lib/server/db/client";
import { processSingleton } from "@/lib/server/process-singletons";
import { everywhere } from "@/lib/server/agent-port/workers/primary-calls";

// The agent port's certificates by fingerprint, and their revocations, for every instance: the
// identity check (agent-port/agent-identity.ts) reads it, revocations (revoke-certificates.ts) evict.

export type CachedCertificate = {
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
// about a second, and at once in every process of the instance that made it (forgetCertificates).
const REVOCATION_POLL_MS = 1000;

type State = { cache: Map<string, CachedCertificate>; revocations: Snapshot<Date> };
function state(): State {
  return processSingleton<State>("certificate-cache", () => ({
    cache: new Map(),
    revocations: new Snapshot(async (since) => {
      // Overlap by a few seconds: rows committed late with an earlier timestamp still count.
      const from = since ? new Date(since.getTime() - 5000) : new Date();
      const rows = await db().revokedCertificate.findMany({
        where: { revokedAt: { gte: from } },
        select: { serial: true, revokedAt: true },
      });
      if (rows.length) forgetHere(rows.map((r) => r.serial));
      return rows.reduce((max, r) => (r.revokedAt > max ? r.revokedAt : max), since ?? from);
    }, REVOCATION_POLL_MS),
  }));
}

function forgetHere(serials: string[]) {
  const set = new Set(serials);
  const { cache } = state();
  for (const [fp, e] of cache) if (set.has(e.serial)) cache.delete(fp);
}

/** Evicts revoked (or changed) certificates here and in the instance's other processes (agent-port workers). */
export const forgetCertificates = everywhere("forget-certificates", forgetHere);

export const forgetCluster = everywhere("forget-cluster", (clusterId: string) => {
  const { cache } = state();
  for (const [fp, e] of cache) if (e.clusterId === clusterId) cache.delete(fp);
});

function remember(fingerprint: string, entry: CachedCertificate) {
  const { cache } = state();
  if (cache.size > 200_000) cache.clear();
  cache.set(fingerprint, entry);
}

/**
 * A new cluster's certificate, cached as it is issued: its first heartbeat, which follows within a
 * second or two, then needs no lookup and marks its first use with one update, which is what a
 * registration wave of thousands of new clusters needs. Only for a cluster registered just now, which has no other certificate.
 */
export function rememberNewCertificate(cert: NewCertificate) {
  const { fingerprint, serial, clusterId, notAfter, issuerFingerprint } = cert;
  // In every process: the first heartbeat lands on whichever agent-port worker takes the connection.
  rememberEverywhere({ fingerprint, serial, clusterId, notAfter, issuerFingerprint });
}

type NewCertificate = { fingerprint: string; serial: string; clusterId: string; notAfter: Date; issuerFingerprint: string };

const rememberEverywhere = everywhere("remember-new-certificate", ({ fingerprint, ...rest }: NewCertificate) =>
  remember(fingerprint, { ...rest, revoked: false, used: false, firstOfCluster: true }),
);

/** The certificate with this fingerprint, from the cache or the database (then cached); null when none was issued. */
export async function cachedCertificate(fingerprint: string): Promise<CachedCertificate | null> {
  const s = state();
  await s.revocations.get();
  const hit = s.cache.get(fingerprint);
  if (hit) return hit;
  const cert = await db().certificate.findUnique({
    where: { fingerprint },
    select: { serial: true, clusterId: true, revokedAt: true, firstUsedAt: true, notAfter: true, issuerFingerprint: true },
  });
  if (!cert) return null;
  const entry: CachedCertificate = {
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
 * A new cluster's certificate seen in use (retire-certificates.ts markFirstUse): noted in every
 * process's cache, so the cluster's next connection, on whichever worker, does not mark it again.
 */
export const noteFirstUse = everywhere("certificate-first-use", (fingerprint: string) => {
  const entry = state().cache.get(fingerprint);
  if (entry) entry.used = true;
});

/** The cached entry only, without a lookup (retire-certificates.ts markFirstUse updates it in place). */
export function peekCachedCertificate(fingerprint: string): CachedCertificate | undefined {
  return state().cache.get(fingerprint);
}
