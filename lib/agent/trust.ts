import crypto from "node:crypto";
import fs from "node:fs/promises";
import type { AgentContext } from "./agent-context";
import { certificateFingerprint, firstPemBlock, issuedBy, pemCertificates } from "./csr";
import { ConfigError } from "./errors";
import { createTlsAgent, EnvProxyAgent, httpRequest } from "./http";
import { AGENT_API } from "./protocol";
import type { AgentState } from "./state";

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

// ---- the running agent's trust ------------------------------------------------------------

/** The fleet CA(s) this run trusts, from the configured anchor or the state dir. */
export async function establishTrust(ctx: AgentContext, loaded: AgentState | null): Promise<string> {
  const trust = ctx.options.trust;
  if ("caPem" in trust) {
    ctx.emit("info", "TRUST_CA_FILE", "trusting only the fleet CA from --ca-file", {
      fingerprint: certificateFingerprint(trust.caPem),
    });
    return trust.caPem;
  }
  if ("caFingerprint" in trust) {
    // The stored bundle may have grown through a CA rollover: the pin needs to be one of it.
    if (loaded && bundleHasFingerprint(loaded.caPem, trust.caFingerprint)) {
      ctx.emit("info", "TRUST_PIN_VERIFIED", "the stored fleet CA matches the pinned fingerprint", {
        fingerprint: trust.caFingerprint,
      });
      return loaded.caPem;
    }
    let caPem: string;
    try {
      caPem = await pinCa(ctx.server, trust.caFingerprint, { timeoutMs: ctx.timeoutMs, signal: ctx.abort.signal });
    } catch (err) {
      // After a fleet CA rollover the pinned CA is retired: the stored CAs, adopted over
      // connections verified from the pin onwards, are the trust now (when our certificate
      // chains to them); the pin in the agent's configuration is merely out of date.
      if (!(err instanceof ConfigError) || err.code !== "TRUST_PIN_MISMATCH" || !loaded) throw err;
      if (!issuedBy(loaded.certPem, loaded.caPem)) throw err;
      ctx.emit(
        "warn",
        "TRUST_STATE_CA",
        `the pinned fleet CA was rolled over: trusting the CA(s) stored in the state dir; update --ca-fingerprint to ${certificateFingerprint(loaded.caPem)}`,
        { pinned: trust.caFingerprint },
      );
      return loaded.caPem;
    }
    ctx.emit("info", "TRUST_PIN_VERIFIED", "fetched the fleet CA, checked it against the pin and verified the server with it", {
      fingerprint: trust.caFingerprint,
    });
    return caPem;
  }
  if (loaded) {
    ctx.emit("info", "TRUST_STATE_CA", "trusting the fleet CA stored at registration", {
      fingerprint: certificateFingerprint(loaded.caPem),
    });
    return loaded.caPem;
  }
  throw new ConfigError(
    "TRUST_MISSING",
    "no way to trust the server: pass --ca-file <fleet CA PEM> or --ca-fingerprint sha256:<hex> (the console shows both where registration tokens are minted)",
  );
}

/**
 * Trusts exactly the CAs of a bundle the control plane sent over TLS this agent already
 * verified (a CA rollover: the incoming CA is added before the server switches to it, the
 * retired one dropped after). Saved to the state dir first, then used for new connections.
 */
export async function adoptBundle(ctx: AgentContext, bundlePem: string): Promise<void> {
  const certs = pemCertificates(bundlePem);
  if (!certs.length || !certs.every(isCaCertificate)) {
    ctx.emit("warn", "CA_MISMATCH", "the control plane sent a CA bundle that is not all CA certificates: ignored");
    return;
  }
  const next = certs.join("");
  const current = ctx.caPem ? pemCertificates(ctx.caPem).join("") : null;
  if (next === current) return;
  ctx.caPem = next;
  ctx.dropAnonymousAgent();
  const state = ctx.state;
  if (state) {
    await ctx.localStep(`write the state dir ${ctx.options.store.location}`, () =>
      ctx.options.store.save({ ...state, caPem: next }),
    );
    ctx.adopt({ ...state, caPem: next });
  }
  ctx.emit("info", "CA_BUNDLE_UPDATED", `now trusting ${certs.length} fleet CA(s)`, {
    fingerprints: certs.map((c) => certificateFingerprint(c)).join(","),
  });
}
