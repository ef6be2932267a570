import "server-only";
import { issueClientCertificate, type IssuedClientCertificate } from "./client-certificate";
import { validateCsr, type ValidatedCsr } from "./csr";
import type { FleetCa } from "./fleet-ca";

export type SignInput = Omit<Parameters<typeof issueClientCertificate>[1], "publicKeyPem">;
/** A CSR checked and, when it passes, its key certified: one job for the signing pool. */
export type CheckedAndSigned = { csr: ValidatedCsr; cert: IssuedClientCertificate };

/** validateCsr, then issueClientCertificate for the CSR's key: throws CsrError for a CSR we refuse. */
export function checkAndSign(ca: FleetCa, pem: string, input: SignInput): CheckedAndSigned {
  const csr = validateCsr(pem);
  return { csr, cert: issueClientCertificate(ca, { ...input, publicKeyPem: csr.publicKeyPem }) };
}
