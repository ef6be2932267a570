import "server-only";
import forge from "node-forge";
import { caSigner, type FleetCa } from "./fleet-ca";
import {
  CLOCK_SKEW_MS,
  derToPem,
  forgePublicKey,
  randomSerialHex,
  sha256Fingerprint,
  signCertificate,
  utf8Name,
  wholeSeconds,
} from "./x509";

export type IssuedClientCertificate = {
  pem: string;
  /** Lowercase hex, 16 random bytes with the top bit clear (see randomSerialHex). */
  serial: string;
  /** "sha256:<hex>" of the DER. */
  fingerprint: string;
  notBefore: Date;
  notAfter: Date;
};

const DAY_MS = 24 * 60 * 60 * 1000;
// X.520 upper bound for a commonName.
const MAX_COMMON_NAME = 64;

/**
 * Signs an agent's client certificate for `publicKeyPem` (already checked by validateCsr).
 * Nothing else from the CSR is carried over: the subject is CN=<clusterId> and the extensions
 * are fixed, so a CSR cannot ask its way into a CA, a server certificate or another identity.
 *
 * The signature is Node's native RSA and most of the cost of a certificate: forge's JavaScript
 * RSA is an order of magnitude slower, far too slow for a registration wave.
 */
export function issueClientCertificate(
  ca: FleetCa,
  input: { publicKeyPem: string; clusterId: string; validityDays: number; now?: Date },
): IssuedClientCertificate {
  const { clusterId, validityDays } = input;
  if (clusterId.length === 0 || clusterId.length > MAX_COMMON_NAME) {
    throw new Error(`A cluster id must be 1-${MAX_COMMON_NAME} characters to be a certificate's CN.`);
  }
  if (!Number.isFinite(validityDays) || validityDays <= 0) throw new Error("validityDays must be a positive number.");

  const now = wholeSeconds(input.now ?? new Date());
  if (now.getTime() >= ca.notAfter.getTime()) throw new Error("The fleet CA has expired; it can no longer issue certificates.");
  const notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  // A certificate outliving its CA would fail verification early anyway; say so in notAfter.
  const notAfter = new Date(Math.min(now.getTime() + Math.round(validityDays * DAY_MS), ca.notAfter.getTime()));

  const signer = caSigner(ca);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forgePublicKey(input.publicKeyPem);
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  cert.setSubject(utf8Name([["CN", clusterId]]));
  cert.setIssuer(signer.issuer);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", clientAuth: true },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: signer.keyIdentifier },
  ]);

  const der = signCertificate(cert, signer.privateKey);
  return {
    pem: derToPem(der, "CERTIFICATE"),
    serial: cert.serialNumber,
    fingerprint: sha256Fingerprint(der),
    notBefore,
    notAfter,
  };
}
