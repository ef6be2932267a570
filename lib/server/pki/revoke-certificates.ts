import "server-only";
import type { Db, Tx } from "@/lib/server/db/client";
import type { AfterCommit } from "@/lib/server/db/transaction";
import { forgetCertificates } from "@/lib/server/pki/certificate-cache";
import type { asPrismaOperation } from "@/lib/server/db/sql";

/**
 * Why the agent port refuses a certificate (RevokedCertificate.reason): "superseded" by a newer
 * one of the same cluster (its key may still prove the agent, lib/domain/reregistration.ts),
 * "revoked" by an operator, "deregistered" with its cluster (answered 410).
 */
export type RevocationKind = "superseded" | "revoked" | "deregistered";

export type Revocation = {
  clusterId: string;
  /** "current": the cluster's unrevoked certificates; "all": every one it ever had; or these serials. */
  certificates: "current" | "all" | string[];
  kind: RevocationKind;
  /** Certificate.revokeReason, in words (the operator's reason, "superseded by rotation"). */
  note: string;
  at: Date;
};

/**
 * The one way certificates are revoked: marked on the certificate, listed in RevokedCertificate
 * (which every instance polls), in the caller's transaction; after commit this instance's
 * certificate cache forgets them at once. A certificate revoked before keeps its first
 * revocation time and note; its listing takes the new kind (a deregistration outranks the rest).
 * Returns the serials revoked.
 */
export async function revokeCertificates(tx: Tx, afterCommit: AfterCommit, r: Revocation): Promise<string[]> {
  const serials = Array.isArray(r.certificates)
    ? r.certificates
    : (
        await tx.certificate.findMany({
          where: { clusterId: r.clusterId, ...(r.certificates === "current" ? { revokedAt: null } : {}) },
          select: { serial: true },
        })
      ).map((c) => c.serial);
  if (!serials.length) return [];
  for (const statement of revocationStatements(tx, { ...r, certificates: serials })) await statement;
  afterCommit(() => forgetCertificates(serials));
  return serials;
}

/**
 * The same revocation of known serials sent as one batch transaction with `alongWith` (run
 * first), for a caller that must not hold an interactive transaction (retire-certificates.ts);
 * once committed, this instance's certificate cache forgets them.
 */
export async function revokeCertificatesInBatch(
  client: Db,
  r: Revocation & { certificates: string[] },
  alongWith: ReturnType<typeof asPrismaOperation>[],
): Promise<void> {
  await client.$transaction([...alongWith, ...revocationStatements(client, r)]);
  forgetCertificates(r.certificates);
}

/** The writes that revoke these serials, unstarted (Prisma runs a statement when it is awaited). */
function revocationStatements(client: Db | Tx, r: Revocation & { certificates: string[] }) {
  const serials = r.certificates;
  return [
    client.certificate.updateMany({
      where: { serial: { in: serials }, revokedAt: null },
      data: { revokedAt: r.at, revokeReason: r.note },
    }),
    client.revokedCertificate.deleteMany({ where: { serial: { in: serials } } }),
    client.revokedCertificate.createMany({
      data: serials.map((serial) => ({ serial, clusterId: r.clusterId, reason: r.kind, revokedAt: r.at })),
    }),
  ];
}
