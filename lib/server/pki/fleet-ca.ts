import "server-only";
import { errorText } from "@/lib/domain/error-text";
import { createPrivateKey, generateKeyPair, randomBytes, X509Certificate, type KeyObject } from "node:crypto";
import { promisify } from "node:util";
import forge from "node-forge";
import type { Db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { isSealedKey, sealKey, unsealKey, type SealedKey } from "./ca-key-seal";
import type { CaAlgorithm } from "@/lib/env";
import {
  CLOCK_SKEW_MS,
  derToPem,
  randomSerialHex,
  sha256Fingerprint,
  signCertificate,
  STAND_IN_KEY,
  subjectKeyIdentifierOf,
  UTF8,
  utf8Name,
  wholeSeconds,
} from "./x509";

export type FleetCa = {
  certPem: string;
  keyPem: string;
  /** "sha256:<64 lowercase hex>" of the certificate's DER. */
  fingerprint: string;
  notAfter: Date;
  /** The CA's distinguished name, e.g. "O=Fleet Registry, OU=install-1a2b3c4d, CN=Fleet Registry CA". */
  subject: string;
};

/**
 * Where the CA lives. `create` must be atomic: false (not an overwrite) when the name exists.
 * `replace` swaps a value only if it is still `expected` (used to seal a key stored in clear);
 * stores without it never rewrite.
 */
export type SecretStore = {
  get(name: string): Promise<string | null>;
  create(name: string, value: string): Promise<boolean>;
  replace?(name: string, expected: string, value: string): Promise<boolean>;
};

/**
 * The CA is written as ONE secret, `fleet-ca.key`, whose value is JSON: `{ version: 1, keyPem,
 * certPem }` with the key in clear (installs without a KEK), or `{ version: 2, sealedKey, certPem }`
 * with the key sealed under the KEK (ca-key-seal.ts). A single insert is atomic in every store we
 * have, so two processes racing on first start can never pair one's key with the other's
 * certificate: the insert that lands first is the CA. `fleet-ca.cert` is a public copy of the
 * certificate, written after, for operators who want the CA certificate without touching key
 * material; the bundle is authoritative. A CA rollover keeps the incoming CA in
 * `fleet-ca.rollover` (same encoding) until the old one is retired (ca-rollover.ts).
 */
export const CA_SECRETS = { bundle: "fleet-ca.key", cert: "fleet-ca.cert", rollover: "fleet-ca.rollover" } as const;
const BUNDLE_SECRET = CA_SECRETS.bundle;
const CERT_SECRET = CA_SECRETS.cert;
const CLEAR_VERSION = 1;
const SEALED_VERSION = 2;

const CA_VALIDITY_YEARS = 10;

const generateKeyPairAsync = promisify(generateKeyPair);

export type LoadOptions = {
  /** The key-encryption key; null/absent: keys are stored and read in clear (with a warning). */
  kek?: Buffer | null;
  /** The key of a CA created now (FLEET_CA_ALGORITHM); an existing CA keeps its own. */
  algorithm?: CaAlgorithm;
};

/**
 * Loads the fleet CA, creating it on the very first start. Never replaces an existing CA. With a
 * KEK, a new CA is stored sealed and a key found in clear is sealed in place (same CA, same
 * fingerprint); a sealed key without the right KEK is refused with a CaKeyError.
 */
export async function loadOrCreateFleetCa(store: SecretStore, options: LoadOptions = {}): Promise<FleetCa> {
  const kek = options.kek ?? null;
  const stored = await store.get(BUNDLE_SECRET);
  if (stored !== null) {
    const { ca, sealed } = decodeStoredCa(stored, kek);
    if (!sealed) await sealInPlace(store, stored, kek);
    return publishCertificate(store, ca);
  }

  const fresh = await createCa(options.algorithm);
  if (await store.create(BUNDLE_SECRET, encodeStoredCa(fresh, kek))) {
    log.info("fleet CA created", { secret: BUNDLE_SECRET, sealed: !!kek });
    if (!kek) warnUnsealed();
    return publishCertificate(store, toFleetCa(fresh.keyPem, fresh.certPem));
  }
  // Another process created the CA between our read and our write; its CA is the CA.
  return publishCertificate(store, decodeStoredCa(await readAfterLostRace(store), kek).ca);
}

/** A CA (key and certificate) as a secret's value: sealed under `kek` when there is one. */
export function encodeStoredCa(
  pair: { keyPem: string; certPem: string },
  kek: Buffer | null,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify(
    kek
      ? { version: SEALED_VERSION, sealedKey: sealKey(pair.keyPem, kek), certPem: pair.certPem, ...extra }
      : { version: CLEAR_VERSION, keyPem: pair.keyPem, certPem: pair.certPem, ...extra },
  );
}

/**
 * Reads a stored CA. CaKeyError when it is sealed and the KEK is missing or wrong (the operator
 * must set it); any other unreadable value is an Error that says to restore a backup.
 */
export function decodeStoredCa(
  value: string,
  kek: Buffer | null,
  name: string = BUNDLE_SECRET,
): { ca: FleetCa; sealed: boolean; fields: Record<string, unknown> } {
  let keyPem: string;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(value) as Record<string, unknown>;
    if (typeof parsed.certPem !== "string") throw new Error("unexpected shape");
    if (parsed.version === CLEAR_VERSION && typeof parsed.keyPem === "string") keyPem = parsed.keyPem;
    else if (parsed.version === SEALED_VERSION && isSealedKey(parsed.sealedKey)) keyPem = "";
    else throw new Error("unexpected shape");
  } catch (err) {
    throw unreadable(name, err);
  }
  const sealed = parsed.version === SEALED_VERSION;
  if (sealed) keyPem = unsealKey(parsed.sealedKey as SealedKey, kek);
  try {
    return { ca: toFleetCa(keyPem, parsed.certPem as string), sealed, fields: parsed };
  } catch (err) {
    throw unreadable(name, err);
  }
}

function unreadable(name: string, err: unknown): Error {
  // Never "repair" by generating a new CA: every issued certificate and agent trust bundle
  // depends on this one. An operator must restore it.
  const reason = errorText(err);
  return new Error(`The stored fleet CA (secret ${name}) is unreadable (${reason}); restore it from a backup.`);
}

let warned = false;
function warnUnsealed() {
  if (warned) return;
  warned = true;
  log.warn(
    "THE FLEET CA PRIVATE KEY IS STORED IN CLEAR in the database: anyone with a copy of the data can mint certificates every agent trusts. Set FLEET_CA_KEK_FILE (or FLEET_CA_KEK) to a 32-byte key kept apart from the data and restart to seal it.",
  );
}

/** Seals a key found in clear, once, when a KEK is configured; the CA itself does not change. */
async function sealInPlace(store: SecretStore, clear: string, kek: Buffer | null) {
  if (!kek) return warnUnsealed();
  if (!store.replace) return;
  const parsed = JSON.parse(clear) as Record<string, unknown> & { keyPem: string; certPem: string };
  const { keyPem, certPem, version: _version, ...extra } = parsed;
  const sealed = encodeStoredCa({ keyPem, certPem }, kek, extra);
  // Lost the swap: another instance sealed it at the same moment, which is just as good.
  if (await store.replace(BUNDLE_SECRET, clear, sealed)) log.info("fleet CA private key sealed with the configured KEK");
}

/** Adapts the Prisma client to a SecretStore (model `secret`: name, value, createdAt). */
export function dbSecretStore(db: Db): SecretStore {
  return {
    async get(name) {
      const row = await db.secret.findUnique({ where: { name }, omit: { value: false } });
      return row?.value ?? null;
    },
    async create(name, value) {
      try {
        await db.secret.create({ data: { name, value }, select: { name: true } });
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    async replace(name, expected, value) {
      const res = await db.secret.updateMany({ where: { name, value: expected }, data: { value } });
      return res.count === 1;
    },
  };
}

// Each generated client (SQLite, PostgreSQL) has its own error class, so match the code.
function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}

async function readAfterLostRace(store: SecretStore): Promise<string> {
  // A store that reports "exists" should return it at once; retry briefly for lagging replicas.
  for (let attempt = 0; attempt < 5; attempt++) {
    const value = await store.get(BUNDLE_SECRET);
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
  }
  throw new Error(`The secret ${BUNDLE_SECRET} exists but cannot be read; check the secret store.`);
}

async function publishCertificate(store: SecretStore, ca: FleetCa): Promise<FleetCa> {
  const copy = await store.get(CERT_SECRET);
  if (copy === null) await store.create(CERT_SECRET, ca.certPem);
  else if (copy.trim() !== ca.certPem.trim()) {
    log.warn("secret fleet-ca.cert differs from the CA in fleet-ca.key; fleet-ca.key is authoritative");
  }
  return ca;
}

function toFleetCa(keyPem: string, certPem: string): FleetCa {
  const cert = new X509Certificate(certPem);
  if (!cert.ca) throw new Error("the certificate is not a CA");
  if (!cert.checkPrivateKey(createPrivateKey(keyPem))) throw new Error("the key does not match the certificate");
  return {
    certPem,
    keyPem,
    fingerprint: sha256Fingerprint(cert.raw),
    notAfter: new Date(cert.validTo),
    subject: cert.subject.split("\n").join(", "),
  };
}

/**
 * A new CA: RSA-3072, or ECDSA P-256, which signs a certificate in a fraction of an RSA-3072
 * signature's time (every registration and rotation signs one; docs/capacity.md has the figures).
 */
export async function createCa(algorithm: CaAlgorithm = "rsa-3072"): Promise<{ keyPem: string; certPem: string }> {
  // Node's native generator: forge needs many seconds for a 3072-bit key; async keeps the
  // event loop free while it runs.
  const { privateKey, publicKey } =
    algorithm === "ecdsa-p256"
      ? await generateKeyPairAsync("ec", { namedCurve: "P-256" })
      : await generateKeyPairAsync("rsa", { modulusLength: 3072, publicExponent: 0x10001 });

  const now = wholeSeconds(new Date());
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_VALIDITY_YEARS);
  // A random OU makes two installs' CAs distinguishable by name, not only by key.
  const subject = utf8Name([
    ["O", "Fleet Registry"],
    ["OU", `install-${randomBytes(4).toString("hex")}`],
    ["CN", "Fleet Registry CA"],
  ]);

  const cert = forge.pki.createCertificate();
  cert.publicKey = STAND_IN_KEY; // forge encodes RSA keys only: signCertificate puts the real key in its place
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  cert.validity.notAfter = notAfter;
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    // pathlen 0: the fleet CA signs leaves only, never an intermediate.
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    subjectKeyIdentifierOf(publicKey),
  ]);
  const der = signCertificate(cert, privateKey, publicKey);
  return { keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), certPem: derToPem(der, "CERTIFICATE") };
}

// ---------------------------------------------------------------------------------------------
// Issuing under a fleet CA (the generic pieces are in x509.ts).

/** What issuing under a CA needs, parsed once per CA instead of once per certificate. */
export type CaSigner = {
  privateKey: KeyObject;
  /** The CA's subject as forge attributes, ready to be a child's issuer. */
  issuer: forge.pki.CertificateField[];
  /** The CA's subjectKeyIdentifier (binary string), the child's authorityKeyIdentifier. */
  keyIdentifier: string;
};

const signers = new Map<string, { keyPem: string; signer: CaSigner }>();
const MAX_CACHED_SIGNERS = 8;

export function caSigner(ca: FleetCa): CaSigner {
  const cached = signers.get(ca.fingerprint);
  if (cached && cached.keyPem === ca.keyPem) return cached.signer;

  const { subject, subjectKeyIdentifier } = caNames(ca.certPem);
  if (!subjectKeyIdentifier) throw new Error("The fleet CA certificate has no subjectKeyIdentifier.");
  const signer: CaSigner = {
    privateKey: createPrivateKey(ca.keyPem),
    // Parsed UTF8String values are raw UTF-8 bytes, and forge re-encodes on output: decode
    // them so the child's issuer is byte-identical to the CA's subject.
    issuer: subject.map((attr) => ({
      type: attr.type,
      valueTagClass: attr.valueTagClass,
      value: attr.valueTagClass === UTF8 && typeof attr.value === "string" ? forge.util.decodeUtf8(attr.value) : attr.value,
    })),
    keyIdentifier: forge.util.hexToBytes(subjectKeyIdentifier),
  };
  if (signers.size >= MAX_CACHED_SIGNERS) signers.clear();
  signers.set(ca.fingerprint, { keyPem: ca.keyPem, signer });
  return signer;
}

const forgeX509 = forge.pki as unknown as {
  RDNAttributesAsArray(rdn: forge.asn1.Asn1): forge.pki.CertificateField[];
  certificateExtensionsFromAsn1(extensions: forge.asn1.Asn1): { name?: string; subjectKeyIdentifier?: string }[];
};

/**
 * A CA certificate's subject and subjectKeyIdentifier (hex), read from its TBSCertificate with
 * forge's own parsers: forge's certificate parser refuses any key but RSA, and a CA may be ECDSA.
 */
function caNames(certPem: string): { subject: forge.pki.CertificateField[]; subjectKeyIdentifier?: string } {
  const der = new X509Certificate(certPem).raw.toString("binary");
  const tbs = (forge.asn1.fromDer(der).value as forge.asn1.Asn1[])[0]!;
  // TBSCertificate ::= SEQUENCE { [0] version, serial, signature, issuer, validity, subject, spki, ..., [3] extensions }
  const fields = tbs.value as forge.asn1.Asn1[];
  const extensions = fields.find((f) => f.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && f.type === 3);
  const ski = extensions && forgeX509.certificateExtensionsFromAsn1(extensions).find((e) => e.name === "subjectKeyIdentifier");
  return { subject: forgeX509.RDNAttributesAsArray(fields[5]!), subjectKeyIdentifier: ski?.subjectKeyIdentifier };
}
