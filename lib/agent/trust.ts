import crypto from "node:crypto";
import fs from "node:fs/promises";
import { certificateFingerprint, firstPemBlock, pemCertificates } from "./csr";
import { ConfigError } from "./errors";
import { createTlsAgent, EnvProxyAgent, httpRequest } from "./http";
import { AGENT_API } from "./protocol";

// How the agent comes to trust the control plane. Exactly one anchor, never the system store:
// either a CA file the operator copied, or a fingerprint pin checked against the CA the server
// serves (trust on first use, but verified against an out-of-band value).

export type TrustSpec = { caPem: string } | { caFingerprint: string } | { fromState: true };

/** Reads --ca-file and checks it holds at least one CA certificate. */
export async function readCaFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    throw new ConfigError("CONFIG_INVALID", `cannot read --ca-file ${file}: ${(err as Error).message}`);
  }
  const certs = pemCertificates(text);
  if (certs.length === 0) throw new ConfigError("CONFIG_INVALID", `--ca-file ${file} contains no PEM certificate`);
  for (const pem of certs) {
    try {
      const cert = new crypto.X509Certificate(pem);
      if (!cert.ca)
        throw new ConfigError("CONFIG_INVALID", `--ca-file ${file} holds a certificate that is not a CA (${cert.subject})`);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError("CONFIG_INVALID", `--ca-file ${file} holds an unreadable certificate: ${(err as Error).message}`);
    }
  }
  return certs.join("");
}

/** The CA PEM from GET /api/agent/v1/ca, whether served as PEM text or inside a JSON object. */
export function extractCaPem(text: string): string | null {
  const direct = firstPemBlock(text);
  if (direct) return direct;
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === "object") {
      for (const value of Object.values(body)) {
        if (typeof value === "string") {
          const pem = firstPemBlock(value);
          if (pem) return pem;
        }
      }
    }
  } catch {
    // not JSON either
  }
  return null;
}

export interface PinOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Fetches the CA without verification (there is nothing to verify with yet), accepts it only
 * if a certificate in it has the pinned SHA-256, then fetches again verifying the server's
 * certificate and host name against that one. The second step matters: whoever is in between can
 * serve the real CA PEM, but cannot present a server certificate the real CA signed. During a
 * fleet CA rollover the server serves a bundle (its own CA first, then the incoming one): the
 * bundle from the verified answer is what the agent trusts from then on.
 */
export async function pinCa(server: URL, fingerprint: string, options: PinOptions): Promise<string> {
  const unverified = new EnvProxyAgent({ keepAlive: false, rejectUnauthorized: false });
  let served: string[];
  try {
    const res = await httpRequest(server, AGENT_API.ca, { method: "GET", agent: unverified, ...options });
    const first = res.status === 200 ? extractCaPem(res.text) : null;
    if (!first) {
      throw new ConfigError(
        "TRUST_PIN_MISMATCH",
        `GET ${AGENT_API.ca} at ${server.host} answered HTTP ${res.status} without a CA certificate: is --server the fleet's agent endpoint?`,
      );
    }
    served = pemCertificates(res.text);
    if (!served.length) served = [first];
  } finally {
    unverified.destroy();
  }
  const pinned = served.find((pem) => certificateFingerprint(pem) === fingerprint);
  if (!pinned) {
    throw new ConfigError(
      "TRUST_PIN_MISMATCH",
      `the CA served by ${server.host} has fingerprint ${certificateFingerprint(served[0]!)}, not the pinned ${fingerprint}: the pinned CA does not match this server (wrong --server, wrong --ca-fingerprint, or something in between)`,
    );
  }
  const verified = createTlsAgent(pinned, undefined, { keepAlive: false });
  try {
    const res = await httpRequest(server, AGENT_API.ca, { method: "GET", agent: verified, ...options });
    const bundle = res.status === 200 ? pemCertificates(res.text) : [];
    return bundle.length > 1 && bundle.includes(pinned) && bundle.every(isCaCertificate) ? bundle.join("") : pinned;
  } finally {
    verified.destroy();
  }
}

/** True for a parsable certificate with CA:TRUE. */
export function isCaCertificate(pem: string): boolean {
  try {
    return new crypto.X509Certificate(pem).ca;
  } catch {
    return false;
  }
}

/** Whether any certificate of a PEM bundle has the fingerprint (a pin survives a CA rollover's bundle). */
export function bundleHasFingerprint(bundlePem: string, fingerprint: string): boolean {
  return pemCertificates(bundlePem).some((pem) => certificateFingerprint(pem) === fingerprint);
}
