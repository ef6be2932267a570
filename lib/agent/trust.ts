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
 * if its SHA-256 equals the pin, then fetches again verifying the server's certificate and
 * host name against it. The second step matters: whoever is in between can serve the real CA
 * PEM, but cannot present a server certificate the real CA signed.
 */
export async function pinCa(server: URL, fingerprint: string, options: PinOptions): Promise<string> {
  const unverified = new EnvProxyAgent({ keepAlive: false, rejectUnauthorized: false });
  let caPem: string | null;
  try {
    const res = await httpRequest(server, AGENT_API.ca, { method: "GET", agent: unverified, ...options });
    caPem = res.status === 200 ? extractCaPem(res.text) : null;
    if (!caPem) {
      throw new ConfigError(
        "TRUST_PIN_MISMATCH",
        `GET ${AGENT_API.ca} at ${server.host} answered HTTP ${res.status} without a CA certificate: is --server the fleet's agent endpoint?`,
      );
    }
  } finally {
    unverified.destroy();
  }
  const actual = certificateFingerprint(caPem);
  if (actual !== fingerprint) {
    throw new ConfigError(
      "TRUST_PIN_MISMATCH",
      `the CA served by ${server.host} has fingerprint ${actual}, not the pinned ${fingerprint}: the pinned CA does not match this server (wrong --server, wrong --ca-fingerprint, or something in between)`,
    );
  }
  const verified = createTlsAgent(caPem, undefined, { keepAlive: false });
  try {
    await httpRequest(server, AGENT_API.ca, { method: "GET", agent: verified, ...options });
  } finally {
    verified.destroy();
  }
  return caPem;
}
