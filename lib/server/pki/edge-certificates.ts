import "server-only";
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import forge from "node-forge";
import type { CaState } from "./current-ca";
import { issueServerCertificate } from "./server-certificate";
import { CLOCK_SKEW_MS, derToPem, forgePublicKey, randomSerialHex, signCertificate, utf8Name, wholeSeconds } from "./x509";

// The files a TLS-terminating proxy in front of the agent port needs (deploy/haproxy/haproxy.cfg):
// the agents' view of it (a server certificate from the fleet CA, the CAs their certificates
// chain to) and its own client certificate towards the agent port.

const BACKEND_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;
/** A proxy certificate with less left than this is replaced when the files are written again. */
export const BACKEND_RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

export type EdgeFrontend = "serving" | "incoming";

/**
 * The proxy's server certificate and key in one PEM (HAProxy's `crt`), for the names agents dial.
 * From the CA the agent port serves with, or, before the old CA is retired, the incoming one
 * (every agent trusts both by then).
 */
export function edgeFrontendPem(state: CaState, hostnames: string[], from: EdgeFrontend = "serving"): string {
  const ca = from === "incoming" ? state.next : state.serving;
  if (!ca) throw new Error("No CA rollover is in progress: there is no incoming CA to issue from.");
  const { certPem, keyPem } = issueServerCertificate(ca, hostnames);
  return `${certPem.trim()}\n${keyPem.trim()}\n`;
}

/**
 * The proxy's own client certificate towards the agent port, certificate and key in one PEM, with
 * its fingerprint for CLIENT_CERT_PROXY_FINGERPRINTS. Self-signed on purpose: a certificate from
 * the fleet CA would make the proxy's connection a cluster's identity on the agent port, and the
 * forwarded one would be ignored. The pin is what the agent port trusts.
 */
export function edgeBackendIdentity(now = new Date()): { pem: string; fingerprint: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const start = wholeSeconds(now);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forgePublicKey(publicKey);
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = new Date(start.getTime() - CLOCK_SKEW_MS);
  cert.validity.notAfter = new Date(start.getTime() + BACKEND_VALIDITY_MS);
  const name = utf8Name([["CN", "Fleet Registry agent-port proxy"]]);
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, critical: true },
    { name: "extKeyUsage", clientAuth: true },
  ]);
  const certPem = derToPem(signCertificate(cert, privateKey), "CERTIFICATE");
  const keyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { pem: `${certPem.trim()}\n${keyPem.trim()}\n`, fingerprint: proxyFingerprint(certPem) };
}

/** The fingerprint CLIENT_CERT_PROXY_FINGERPRINTS pins, of the first certificate in `pem`. */
export function proxyFingerprint(pem: string): string {
  return `sha256:${new X509Certificate(pem).fingerprint256.replace(/:/g, "").toLowerCase()}`;
}
