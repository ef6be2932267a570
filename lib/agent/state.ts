import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { certificateMatchesKey } from "./csr";

// What an agent keeps between runs: its key, its certificate, the fleet CA it trusts and what
// the server told it at registration. cluster.json is written last, so its presence means
// "registered"; a crash mid-registration leaves no cluster.json and the agent registers again.

export interface ClusterRecord {
  clusterId: string;
  name: string;
  /** The server this identity belongs to (informational: --server on the command line wins). */
  serverUrl: string;
  registeredAt: string;
  heartbeatIntervalSeconds: number;
  heartbeatPath: string;
  /** The cluster's own CA fingerprint sent at registration; re-registration must repeat it. */
  clusterCaFingerprint: string;
  agentVersion: string;
  kubernetesVersion: string;
  appliedPolicyRevision: string | null;
  /**
   * The UID of the kube-system namespace of the cluster this identity belongs to: a state restored
   * into another cluster (a backup, a clone) is told apart by it (agent.ts, bindToCluster).
   */
  clusterUid?: string;
  /** SHA-256 (hex) of the token this identity was registered with: that token put back later is recognised as used. */
  usedTokenSha256?: string;
}

export interface AgentState {
  keyPem: string;
  certPem: string;
  caPem: string;
  cluster: ClusterRecord;
}

/** State that exists but cannot be used (corrupt, or key and certificate do not match). */
export class StateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateError";
  }
}

/**
 * The store cannot be read or written now (its API answered 5xx or 429, or did not answer): retried
 * with backoff, never a configuration error. Refusals (401, 403, a missing namespace) are not this.
 */
export class StateUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateUnavailableError";
  }
}

/** What a store that outlives the agent keeps after a disconnect: who left and when, no credentials. */
export interface Tombstone {
  clusterId: string | null;
  name: string;
  /** "disconnected" (a directive) or "deregistered" (410 from the control plane). */
  reason: "disconnected" | "deregistered";
  at: string;
}

/**
 * load() found a tombstone: this cluster left the fleet. The agent idles instead of registering
 * again with whatever token a re-applied manifest brought back (used up: it would crash-loop).
 */
export class TombstoneError extends Error {
  constructor(
    readonly tombstone: Tombstone,
    message: string,
  ) {
    super(message);
    this.name = "TombstoneError";
  }
}

export interface StateStore {
  /** Where the state lives, for log lines. */
  readonly location: string;
  /** True after load() repaired an interrupted rotation. */
  readonly recovered?: boolean;
  /** null when the agent has not registered yet; StateError when present but unusable. */
  load(): Promise<AgentState | null>;
  save(state: AgentState): Promise<void>;
  /** Switches key and certificate together (after rotation). */
  saveIdentity(keyPem: string, certPem: string): Promise<void>;
  saveCluster(cluster: ClusterRecord): Promise<void>;
  /**
   * The key of a registration not yet answered, kept before the first attempt so a retry after a
   * lost answer (or a restart) proves itself with the same key (docs/protocol.md, Re-registration (a)).
   * save() forgets it.
   */
  loadPendingKey(): Promise<string | null>;
  savePendingKey(keyPem: string): Promise<void>;
  /**
   * Forgets everything (deregistered or disconnected). A store a re-applied manifest can bring
   * back (the state Secret) keeps the tombstone instead, so load() throws TombstoneError.
   */
  destroy(tombstone?: Tombstone): Promise<void>;
}

export const STATE_FILES = {
  key: "key.pem",
  cert: "cert.pem",
  ca: "ca.pem",
  cluster: "cluster.json",
  pendingKey: "pending-key.pem",
} as const;
const NEXT = ".next";

/** Creates `dir` (and parents) with 0700 and tightens it if it already existed. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700);
}

/**
 * Writes via a temporary file in the same directory and a rename, so a reader (or a crash)
 * never sees half a file. Mode 0600 from creation: the key is never briefly world-readable.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
  const handle = await fs.open(tmp, "w", 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.chmod(tmp, 0o600);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function parseCluster(text: string, where: string): ClusterRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new StateError(`${where} is not valid JSON`);
  }
  const r = raw as Partial<ClusterRecord> | null;
  if (!r || typeof r.clusterId !== "string" || !r.clusterId || typeof r.name !== "string") {
    throw new StateError(`${where} has no clusterId/name`);
  }
  return {
    clusterId: r.clusterId,
    name: r.name,
    serverUrl: typeof r.serverUrl === "string" ? r.serverUrl : "",
    registeredAt: typeof r.registeredAt === "string" ? r.registeredAt : "",
    heartbeatIntervalSeconds:
      typeof r.heartbeatIntervalSeconds === "number" && r.heartbeatIntervalSeconds > 0 ? r.heartbeatIntervalSeconds : 30,
    heartbeatPath: typeof r.heartbeatPath === "string" ? r.heartbeatPath : "/api/agent/v1/heartbeat",
    clusterCaFingerprint: typeof r.clusterCaFingerprint === "string" ? r.clusterCaFingerprint : "",
    agentVersion: typeof r.agentVersion === "string" ? r.agentVersion : "",
    kubernetesVersion: typeof r.kubernetesVersion === "string" ? r.kubernetesVersion : "",
    appliedPolicyRevision: typeof r.appliedPolicyRevision === "string" ? r.appliedPolicyRevision : null,
    ...(typeof r.clusterUid === "string" && r.clusterUid ? { clusterUid: r.clusterUid } : {}),
    ...(typeof r.usedTokenSha256 === "string" && r.usedTokenSha256 ? { usedTokenSha256: r.usedTokenSha256 } : {}),
  };
}

function checkIdentity(state: AgentState, where: string): AgentState {
  if (!certificateMatchesKey(state.certPem, state.keyPem)) {
    throw new StateError(`${where}: cert.pem does not belong to key.pem`);
  }
  return state;
}

/** key.pem, cert.pem, ca.pem and cluster.json in a 0700 directory, each 0600. */
export class FileStateStore implements StateStore {
  /** Set when load() finished a rotation that a crash interrupted. */
  recovered = false;

  constructor(readonly dir: string) {}

  get location() {
    return this.dir;
  }

  private file(name: string) {
    return path.join(this.dir, name);
  }

  async load(): Promise<AgentState | null> {
    const clusterText = await readIfExists(this.file(STATE_FILES.cluster));
    if (clusterText === null) return null;
    await this.recoverRotation();
    const [keyPem, certPem, caPem] = await Promise.all([
      readIfExists(this.file(STATE_FILES.key)),
      readIfExists(this.file(STATE_FILES.cert)),
      readIfExists(this.file(STATE_FILES.ca)),
    ]);
    if (!keyPem || !certPem || !caPem) {
      throw new StateError(`${this.dir} has cluster.json but is missing key.pem, cert.pem or ca.pem`);
    }
    return checkIdentity(
      { keyPem, certPem, caPem, cluster: parseCluster(clusterText, this.file(STATE_FILES.cluster)) },
      this.dir,
    );
  }

  async save(state: AgentState): Promise<void> {
    await ensurePrivateDir(this.dir);
    await writeFileAtomic(this.file(STATE_FILES.key), state.keyPem);
    await writeFileAtomic(this.file(STATE_FILES.cert), state.certPem);
    await writeFileAtomic(this.file(STATE_FILES.ca), state.caPem);
    await writeFileAtomic(this.file(STATE_FILES.cluster), JSON.stringify(state.cluster, null, 2) + "\n");
    await fs.rm(this.file(STATE_FILES.pendingKey), { force: true });
  }

  async loadPendingKey(): Promise<string | null> {
    return readIfExists(this.file(STATE_FILES.pendingKey));
  }

  async savePendingKey(keyPem: string): Promise<void> {
    await ensurePrivateDir(this.dir);
    await writeFileAtomic(this.file(STATE_FILES.pendingKey), keyPem);
  }

  /**
   * Two renames cannot be one atomic step, so: write both new files as *.next, rename the key,
   * then the certificate. A crash leaves either both .next files (rotation not committed:
   * discard them, the old pair is intact and still valid) or only cert.pem.next (the key moved:
   * finish by moving the certificate). recoverRotation() applies exactly that on the next load.
   */
  async saveIdentity(keyPem: string, certPem: string): Promise<void> {
    await ensurePrivateDir(this.dir);
    const key = this.file(STATE_FILES.key);
    const cert = this.file(STATE_FILES.cert);
    await writeFileAtomic(key + NEXT, keyPem);
    await writeFileAtomic(cert + NEXT, certPem);
    await fs.rename(key + NEXT, key);
    await fs.rename(cert + NEXT, cert);
  }

  async saveCluster(cluster: ClusterRecord): Promise<void> {
    await ensurePrivateDir(this.dir);
    await writeFileAtomic(this.file(STATE_FILES.cluster), JSON.stringify(cluster, null, 2) + "\n");
  }

  async destroy(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }

  private async recoverRotation() {
    const key = this.file(STATE_FILES.key);
    const cert = this.file(STATE_FILES.cert);
    const keyNext = await readIfExists(key + NEXT);
    const certNext = await readIfExists(cert + NEXT);
    if (keyNext !== null) {
      await fs.rm(key + NEXT, { force: true });
      await fs.rm(cert + NEXT, { force: true });
      this.recovered = true;
    } else if (certNext !== null) {
      await fs.rename(cert + NEXT, cert);
      this.recovered = true;
    }
  }
}

/** State in memory only: the simulator's default, and tests. */
export class MemoryStateStore implements StateStore {
  state: AgentState | null = null;
  pendingKey: string | null = null;
  destroyed = false;

  constructor(readonly location = "memory") {}

  async load() {
    return this.state ? checkIdentity(structuredClone(this.state), this.location) : null;
  }
  async save(state: AgentState) {
    this.state = structuredClone(state);
    this.pendingKey = null;
  }
  async loadPendingKey() {
    return this.pendingKey;
  }
  async savePendingKey(keyPem: string) {
    this.pendingKey = keyPem;
  }
  async saveIdentity(keyPem: string, certPem: string) {
    if (this.state) this.state = { ...this.state, keyPem, certPem };
  }
  async saveCluster(cluster: ClusterRecord) {
    if (this.state) this.state = { ...this.state, cluster: { ...cluster } };
  }
  async destroy() {
    this.state = null;
    this.pendingKey = null;
    this.destroyed = true;
  }
}
