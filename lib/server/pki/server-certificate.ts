import "server-only";
import { generateKeyPairSync } from "node:crypto";
import { isIP } from "node:net";
import forge from "node-forge";
import { caSigner, type FleetCa } from "./fleet-ca";
import {
  CLOCK_SKEW_MS,
  derToPem,
  randomSerialHex,
  signCertificate,
  STAND_IN_KEY,
  subjectKeyIdentifierOf,
  utf8Name,
  wholeSeconds,
} from "./x509";

const VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;
// DNS names as agents dial them; "*." allowed for a wildcard ingress name.
const DNS_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A TLS server certificate for the agent HTTPS port, signed by the fleet CA so agents need
 * only the CA to trust it. Made fresh on every process start and never stored: the key never
 * leaves memory, and a changed hostname list takes effect on restart.
 */
export function issueServerCertificate(ca: FleetCa, hostnames: string[]): { certPem: string; keyPem: string } {
  const names = normaliseHostnames(hostnames);
  const now = wholeSeconds(new Date());
  if (now.getTime() >= ca.notAfter.getTime()) throw new Error("The fleet CA has expired; it can no longer issue certificates.");

  // ECDSA P-256: this key signs every full TLS handshake on the agent port, and an ECDSA
  // signature costs a fraction of an RSA-2048 one (measured in scripts/bench/tls-handshakes.ts).
  // The CA (RSA or ECDSA, FLEET_CA_ALGORITHM) signs it; client certificates stay RSA (docs/protocol.md).
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const signer = caSigner(ca);
  const cert = forge.pki.createCertificate();
  cert.publicKey = STAND_IN_KEY; // forge encodes RSA keys only: signCertificate puts the EC key in its place
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  cert.validity.notAfter = new Date(Math.min(now.getTime() + VALIDITY_MS, ca.notAfter.getTime()));
  // Clients match SANs, not the CN; the CN only makes the certificate readable.
  const first = names[0]!;
  cert.setSubject(utf8Name([["CN", first.length <= 64 ? first : "Fleet Registry agent port"]]));
  cert.setIssuer(signer.issuer);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    // digitalSignature only: an EC key signs the handshake and never wraps a key (no RSA key exchange).
    { name: "keyUsage", digitalSignature: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    // forge's altName types: 2 = dNSName, 7 = iPAddress.
    { name: "subjectAltName", altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
    subjectKeyIdentifierOf(publicKey),
    { name: "authorityKeyIdentifier", keyIdentifier: signer.keyIdentifier },
  ]);

  return {
    certPem: derToPem(signCertificate(cert, signer.privateKey, publicKey), "CERTIFICATE"),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

function normaliseHostnames(hostnames: string[]): string[] {
  const names = [
    ...new Set(
      hostnames
        .map((h) =>
          h
            .trim()
            .toLowerCase()
            .replace(/^\[(.*)\]$/, "$1"),
        )
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) throw new Error("The agent port's server certificate needs at least one hostname or IP address.");
  for (const name of names) {
    if (!isIP(name) && (name.length > 253 || !DNS_NAME.test(name))) {
      throw new Error(`"${name}" is neither an IP address nor a valid DNS name for the agent port's certificate.`);
    }
  }
  return names;
}
