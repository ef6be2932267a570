import "server-only";
import { createHash, X509Certificate } from "node:crypto";

/** Whether `cert` was signed by one of `cas` (used where the TLS layer's verdict is not enough). */
export function chainsTo(cert: X509Certificate, cas: X509Certificate[]): boolean {
  return cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
}

/** Why a trusted proxy's X-Forwarded-Client-Cert gives no identity (the request is refused 400). */
export class ForwardedCertError extends Error {}

// Canonical base64 (padded, no line breaks): HAProxy's %[ssl_c_der,base64].
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The one certificate a TLS-terminating proxy forwards: URL-encoded PEM, bare (nginx's
 * $ssl_client_escaped_cert) or as the Cert key of one Envoy element, or the certificate's DER in
 * base64 (HAProxy's ssl_c_der,base64), which must be exactly one certificate and nothing after it.
 * Null when it names none or one that is not ours; throws when it names more than one: with
 * Envoy's APPEND_FORWARD the client's own element comes first, so a header with several is never
 * believed. `expired`: issued by a trusted CA but past its end (only rotate accepts it).
 */
export function forwardedCertificate(
  value: string,
  cas: X509Certificate[],
  now = Date.now(),
): { cert: X509Certificate; expired: boolean } | null {
  const cert = signedByUs(value, cas);
  if (!cert || Date.parse(cert.validFrom) > now) return null;
  return { cert, expired: now > Date.parse(cert.validTo) };
}

/** The forwarded certificate if one of `cas` signed it, whatever its dates. */
function signedByUs(value: string, cas: X509Certificate[]): X509Certificate | null {
  const bare = value.trim();
  if (BASE64.test(bare)) return derCertificate(Buffer.from(bare, "base64"), cas);
  const elements = splitOutsideQuotes(value, ",").filter((e) => e.trim());
  if (elements.length > 1) throw new ForwardedCertError("X-Forwarded-Client-Cert names more than one certificate.");
  const element = elements[0]?.trim() ?? "";
  let encoded = element;
  if (/^[A-Za-z]+\s*=/.test(element)) {
    // An Envoy element: By=...;Hash=...;Cert="<url-encoded PEM>";Chain=...
    const certs = splitOutsideQuotes(element, ";")
      .map((pair) => /^\s*cert\s*=\s*"?([^"]*)"?\s*$/i.exec(pair)?.[1])
      .filter((c): c is string => c !== undefined);
    if (certs.length > 1) throw new ForwardedCertError("X-Forwarded-Client-Cert names more than one certificate.");
    if (!certs.length) return null;
    encoded = certs[0]!;
  }
  let pem: string;
  try {
    pem = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  if ((pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length > 1) {
    throw new ForwardedCertError("X-Forwarded-Client-Cert names more than one certificate.");
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return null;
  }
  return chainsTo(cert, cas) ? cert : null;
}

/** A DER certificate, refused unless the bytes are that one certificate (a second one after it would be ignored). */
function derCertificate(der: Buffer, cas: X509Certificate[]): X509Certificate | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch {
    return null;
  }
  if (!cert.raw.equals(der)) throw new ForwardedCertError("X-Forwarded-Client-Cert holds more than one certificate.");
  return chainsTo(cert, cas) ? cert : null;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** The identity a forwarded certificate gives at one moment. */
export type ForwardedIdentity = { fingerprint256: string; serial: string; expired: boolean };

type Vouched = { fingerprint256: string; serial: string; notBefore: number; notAfter: number };

/**
 * forwardedCertificate for one trust list, remembered: behind a TLS-terminating proxy every
 * request carries its agent's certificate, and parsing it and checking its signature was over a
 * third of an agent-port worker's CPU. What is remembered is what cannot change for that trust
 * list (who signed it, its fingerprint, serial and dates), keyed by a digest of the header; the
 * dates are read against the clock on every request, and revocation is the app's to decide, as
 * for a certificate the agent presents itself. A new trust list (a CA rollover) gets a new cache.
 * Only certificates of the fleet are remembered, at most `limit` of them (the oldest go first).
 */
export class ForwardedIdentities {
  private readonly known = new Map<string, Vouched>();

  constructor(
    private readonly cas: X509Certificate[],
    private readonly limit = 100_000,
  ) {}

  /** The identity `value` names at `now`, or null; throws ForwardedCertError as forwardedCertificate does. */
  identity(value: string, now = Date.now()): ForwardedIdentity | null {
    const key = createHash("sha256").update(value).digest("base64");
    let vouched = this.known.get(key);
    if (!vouched) {
      const cert = signedByUs(value, this.cas);
      if (!cert) return null;
      vouched = {
        fingerprint256: cert.fingerprint256,
        serial: cert.serialNumber,
        notBefore: Date.parse(cert.validFrom),
        notAfter: Date.parse(cert.validTo),
      };
      if (this.known.size >= this.limit) this.known.delete(this.known.keys().next().value!);
      this.known.set(key, vouched);
    }
    if (now < vouched.notBefore) return null;
    return { fingerprint256: vouched.fingerprint256, serial: vouched.serial, expired: now > vouched.notAfter };
  }

  /** Certificates remembered. */
  get size(): number {
    return this.known.size;
  }
}
