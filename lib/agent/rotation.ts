import crypto from "node:crypto";

// When to rotate: once a third (or less) of the certificate's lifetime remains. That leaves
// two thirds of the lifetime's worth of retries if the server is unreachable at that moment.

export interface CertLifetime {
  notBefore: number;
  notAfter: number;
  serial: string;
}

export function certificateLifetime(certPem: string): CertLifetime {
  const cert = new crypto.X509Certificate(certPem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo), serial: cert.serialNumber };
}

export const ROTATE_WHEN_REMAINING = 1 / 3;

/** The moment from which rotation is due. */
export function rotationDueAt(lifetime: Pick<CertLifetime, "notBefore" | "notAfter">, fraction = ROTATE_WHEN_REMAINING): number {
  return lifetime.notAfter - (lifetime.notAfter - lifetime.notBefore) * fraction;
}

export function shouldRotate(
  lifetime: Pick<CertLifetime, "notBefore" | "notAfter">,
  now: number,
  fraction = ROTATE_WHEN_REMAINING,
): boolean {
  return now >= rotationDueAt(lifetime, fraction);
}
