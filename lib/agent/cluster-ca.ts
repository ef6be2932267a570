import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import forge from "node-forge";
import { certificateFingerprint, firstPemBlock, generateRsaKeyPair } from "./csr";
import { ConfigError } from "./errors";
import type { AgentLogger } from "./log";
import { ensurePrivateDir, writeFileAtomic } from "./state";

// caFingerprint identifies the cluster itself (its own CA), so a name cannot be taken over by a
// different cluster. Outside Kubernetes there is no cluster CA, so the agent makes a stand-in
// once and keeps it in the state dir: the fingerprint then stays the same across runs.

export const IN_CLUSTER_CA = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
export const SIMULATED_CA_FILE = "cluster-ca.pem";

export interface ClusterCaOptions {
  /** --cluster-ca-file */
  file?: string;
  stateDir: string;
  /** Overridable for tests. */
  inClusterPath?: string;
  logger?: AgentLogger;
}

async function readCert(file: string): Promise<string | null> {
  try {
    return firstPemBlock(await fs.readFile(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

export async function resolveClusterCaFingerprint(options: ClusterCaOptions): Promise<string> {
  if (options.file) {
    const pem = await readCert(options.file);
    if (!pem) throw new ConfigError("CONFIG_INVALID", `--cluster-ca-file ${options.file} is missing or holds no PEM certificate`);
    const fingerprint = certificateFingerprint(pem);
    options.logger?.log({
      level: "info",
      code: "CLUSTER_CA",
      message: "cluster CA from --cluster-ca-file",
      fields: { fingerprint },
    });
    return fingerprint;
  }
  const inCluster = await readCert(options.inClusterPath ?? IN_CLUSTER_CA);
  if (inCluster) {
    const fingerprint = certificateFingerprint(inCluster);
    options.logger?.log({
      level: "info",
      code: "CLUSTER_CA",
      message: "cluster CA from the in-cluster service account",
      fields: { fingerprint },
    });
    return fingerprint;
  }
  const file = path.join(options.stateDir, SIMULATED_CA_FILE);
  let pem = await readCert(file);
  if (!pem) {
    pem = await makeSimulatedClusterCa();
    await ensurePrivateDir(options.stateDir);
    await writeFileAtomic(file, pem);
  }
  const fingerprint = certificateFingerprint(pem);
  options.logger?.log({
    level: "info",
    code: "CLUSTER_CA",
    message: "not running in a cluster: using the simulated cluster CA kept in the state dir",
    fields: { fingerprint, file },
  });
  return fingerprint;
}

/** A self-signed CA certificate; its key is thrown away (only the fingerprint is ever used). */
export async function makeSimulatedClusterCa(): Promise<string> {
  const keys = await generateRsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = "01" + crypto.randomBytes(15).toString("hex");
  const now = new Date();
  cert.validity.notBefore = now;
  cert.validity.notAfter = new Date(now.getTime() + 10 * 365 * 24 * 3600 * 1000);
  const subject = [{ name: "commonName", value: "simulated cluster CA" }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}
