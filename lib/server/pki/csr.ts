import "server-only";
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import forge from "node-forge";

/** A CSR we refuse; the message is one sentence an agent operator can act on (-> 400 invalid_csr). */
export class CsrError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CsrError";
  }
}

export type ValidatedCsr = {
  /** The requested public key as SPKI PEM; the only thing from the CSR that we sign. */
  publicKeyPem: string;
  /** For logs only: the issued certificate's CN is always the cluster id. */
  requestedCommonName: string | null;
};

// A 8192-bit RSA CSR is ~3 KiB of PEM; anything far larger is not a CSR we want to parse.
const MAX_PEM_LENGTH = 16 * 1024;
const MIN_RSA_BITS = 2048;
// Every TLS handshake costs the agent's key size; beyond this it only burns CPU.
const MAX_RSA_BITS = 8192;

const PEM = /^\s*-----BEGIN (NEW )?CERTIFICATE REQUEST-----\r?\n([A-Za-z0-9+/=\s]+?)-----END \1CERTIFICATE REQUEST-----\s*$/;

const SIGNATURE_HASHES: Record<string, string> = {
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
};

const OID = {
  extensionRequest: "1.2.840.113549.1.9.14",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/**
 * Checks an agent's PKCS#10 request. Only its public key is used, but a CSR that asks for more
 * than a client certificate (CA rights, other usages, SANs) is refused rather than silently
 * trimmed: an agent asking for those is misconfigured or hostile, and either way should hear so.
 */
export function validateCsr(pem: string): ValidatedCsr {
  const asn1 = parseDer(decodePem(pem));
  const publicKey = checkPublicKey(asn1);
  const csr = parseRequest(asn1);
  checkSignature(csr, asn1, publicKey);
  for (const extension of requestedExtensions(csr)) checkExtension(extension);
  return {
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    requestedCommonName: commonName(csr),
  };
}

function commonName(csr: forge.pki.CertificateSigningRequest): string | null {
  const field = csr.subject.getField("CN") as { value?: unknown; valueTagClass?: number } | null;
  if (typeof field?.value !== "string") return null;
  if (field.valueTagClass !== forge.asn1.Type.UTF8) return field.value;
  // forge leaves UTF8String values as raw UTF-8 bytes.
  try {
    return forge.util.decodeUtf8(field.value);
  } catch {
    return null;
  }
}

function decodePem(pem: string): Buffer {
  if (typeof pem !== "string") throw new CsrError("The CSR must be a PEM string.");
  if (pem.length > MAX_PEM_LENGTH) throw new CsrError(`The CSR is larger than ${MAX_PEM_LENGTH / 1024} KiB.`);
  const match = PEM.exec(pem);
  if (!match) throw new CsrError("The CSR is not a single PEM block labelled CERTIFICATE REQUEST.");
  return Buffer.from(match[2]!.replace(/\s+/g, ""), "base64");
}

function parseDer(der: Buffer): forge.asn1.Asn1 {
  try {
    // strict DER, and every byte must belong to the structure.
    return forge.asn1.fromDer(forge.util.createBuffer(der.toString("binary")), true);
  } catch {
    throw notPkcs10();
  }
}

function notPkcs10(): CsrError {
  return new CsrError("The CSR is not a valid PKCS#10 certificate request.");
}

/**
 * Reads the key with Node before forge sees the request: forge only understands RSA and
 * throws "OID is not RSA" for anything else, which we want to report as a key problem.
 */
function checkPublicKey(asn1: forge.asn1.Asn1): KeyObject {
  const info = children(asn1)?.[0];
  const spki = info ? children(info)?.[2] : undefined;
  if (!spki) throw notPkcs10();
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(forge.asn1.toDer(spki).getBytes(), "binary"), format: "der", type: "spki" });
  } catch {
    throw new CsrError("The CSR's public key cannot be read.");
  }
  if (key.asymmetricKeyType !== "rsa") {
    throw new CsrError(
      `The CSR has ${key.asymmetricKeyType ?? "an unknown"} key, but an RSA key of at least ${MIN_RSA_BITS} bits is required.`,
    );
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) throw new CsrError(`The CSR's RSA key has ${bits} bits, but at least ${MIN_RSA_BITS} are required.`);
  if (bits > MAX_RSA_BITS) throw new CsrError(`The CSR's RSA key has ${bits} bits, more than the ${MAX_RSA_BITS} we accept.`);
  if (key.asymmetricKeyDetails?.publicExponent !== BigInt(65537)) {
    throw new CsrError("The CSR's RSA public exponent must be 65537.");
  }
  return key;
}

function children(node: forge.asn1.Asn1): forge.asn1.Asn1[] | null {
  return node.constructed && Array.isArray(node.value) ? node.value : null;
}

function parseRequest(asn1: forge.asn1.Asn1): forge.pki.CertificateSigningRequest {
  try {
    return forge.pki.certificationRequestFromAsn1(asn1);
  } catch {
    throw notPkcs10();
  }
}

/** Verified natively: OpenSSL's PKCS#1 v1.5 check is strict, and it is faster than forge's. */
function checkSignature(csr: forge.pki.CertificateSigningRequest, asn1: forge.asn1.Asn1, publicKey: KeyObject) {
  const hash = csr.signatureOid ? SIGNATURE_HASHES[csr.signatureOid] : undefined;
  if (!hash) throw new CsrError("The CSR must be signed with SHA-256, SHA-384 or SHA-512 with RSA (PKCS#1 v1.5).");
  const info = children(asn1)?.[0];
  if (!info || typeof csr.signature !== "string") throw notPkcs10();
  const signedBytes = Buffer.from(forge.asn1.toDer(info).getBytes(), "binary");
  const signature = Buffer.from(csr.signature, "binary");
  let valid = false;
  try {
    valid = verify(hash, signedBytes, publicKey, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new CsrError("The CSR's signature does not match its contents and public key.");
}

type Extension = { id: string; value: string; cA?: boolean; keyCertSign?: boolean; cRLSign?: boolean };

function requestedExtensions(csr: forge.pki.CertificateSigningRequest): Extension[] {
  // Every extensionRequest attribute counts, not only the first one forge's getAttribute finds.
  return csr.attributes
    .filter((attr) => attr.type === OID.extensionRequest)
    .flatMap((attr) => (attr.extensions ?? []) as Extension[]);
}

function checkExtension(ext: Extension) {
  switch (ext.id) {
    case OID.basicConstraints:
      if (ext.cA) throw new CsrError("The CSR asks to be a CA (basicConstraints CA:TRUE), which an agent certificate never is.");
      return;
    case OID.keyUsage:
      if (ext.keyCertSign || ext.cRLSign) {
        throw new CsrError("The CSR asks for the keyCertSign or cRLSign key usage, which an agent certificate never has.");
      }
      return;
    case OID.extKeyUsage: {
      const other = extendedKeyUsages(ext).find((oid) => oid !== OID.clientAuth);
      if (other) throw new CsrError(`The CSR asks for extended key usage ${usageName(other)}; only clientAuth is granted.`);
      return;
    }
    case OID.subjectAltName:
      throw new CsrError("The CSR asks for subject alternative names, which agent certificates never carry; remove them.");
    default:
      // Anything else is ignored, not copied: the certificate's extensions are fixed.
      return;
  }
}

function extendedKeyUsages(ext: Extension): string[] {
  try {
    const seq = forge.asn1.fromDer(ext.value, true);
    return (children(seq) ?? []).map((node) => forge.asn1.derToOid(node.value as string));
  } catch {
    throw notPkcs10();
  }
}

function usageName(oid: string): string {
  const name = (forge.pki.oids as Record<string, string | undefined>)[oid];
  return name ? `${name} (${oid})` : oid;
}
