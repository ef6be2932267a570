import "server-only";
import { ApiError } from "@/lib/server/api/errors";
import type { Tx } from "@/lib/server/db/client";
import { insertInto, type Sql } from "@/lib/server/db/sql";
import type { AfterCommit } from "@/lib/server/db/transaction";
import { rememberNewCertificate } from "./certificate-cache";
import { CsrError, validateCsr, type ValidatedCsr } from "./csr";
import type { FleetCa } from "./fleet-ca";
import { checkCsrAndSign } from "./signing-pool";

// The one way an agent's client certificate comes to be: its CSR checked, a certificate signed
// for the CSR's key by the issuing CA (in the signing pool, before any transaction, so writers
// are not held up), then its row written in the caller's transaction. Registration, an
// operator's approval and rotation all issue through here.

/** A certificate's row as stored (Certificate), for the cluster it was signed for. */
export type CertificateRow = {
  serial: string;
  clusterId: string;
  fingerprint: string;
  pem: string;
  notBefore: Date;
  notAfter: Date;
  issuerFingerprint: string;
};

export type IssuedCertificate = { csr: ValidatedCsr; row: CertificateRow };

/**
 * Checks the CSR and signs a certificate for its key. A CSR we refuse is ApiError invalid_csr;
 * `refusal` words what the CSR was (an approval signs one recorded earlier).
 */
export async function issueCertificate(
  ca: FleetCa,
  csrPem: string,
  input: { clusterId: string; validityDays: number; now?: Date },
  refusal?: string,
): Promise<IssuedCertificate> {
  const { csr, cert } = await refusingBadCsr(() => checkCsrAndSign(ca, csrPem, input), refusal);
  const row = {
    serial: cert.serial,
    clusterId: input.clusterId,
    fingerprint: cert.fingerprint,
    pem: cert.pem,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    issuerFingerprint: ca.fingerprint,
  };
  return { csr, row };
}

/** The CSR checked, nothing signed (a registration that will wait for approval). */
export function checkCsr(pem: string): Promise<ValidatedCsr> {
  return refusingBadCsr(async () => validateCsr(pem));
}

async function refusingBadCsr<T>(work: () => Promise<T>, refusal?: string): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CsrError) throw new ApiError("invalid_csr", refusal ? `${refusal}: ${err.message}` : err.message);
    throw err;
  }
}

/** Writes an issued certificate's row in the caller's transaction (a cluster that had certificates before). */
export async function storeCertificate(tx: Tx, row: CertificateRow): Promise<void> {
  await tx.certificate.create({ data: row });
}

/**
 * A new cluster's first certificate, as an insert for a raw write path; once committed it is
 * cached as it is, so the cluster's first heartbeat needs no lookup.
 */
export function firstCertificateInsert(afterCommit: AfterCommit, row: CertificateRow, now: Date): Sql {
  afterCommit(() => rememberNewCertificate(row));
  return insertInto("Certificate", [{ ...row, createdAt: now }]);
}
