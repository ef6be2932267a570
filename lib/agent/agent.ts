import { performance } from "node:perf_hooks";
import type https from "node:https";
import { backoffDelay, DEFAULT_BACKOFF, jitteredInterval, retryAfterDelay, type BackoffPolicy } from "./backoff";
import { systemClock, hashSeed, seededRandom, type Clock } from "./clock";
import {
  buildCsr,
  certificateFingerprint,
  certificateMatchesKey,
  firstPemBlock,
  generateRsaKeyPair,
  issuedBy,
  pemCertificates,
  keyPairFromPrivateKey,
  type KeyPair,
} from "./csr";
import { AckTracker, AGENT_CAPABILITIES, directiveParam, type Directive } from "./directives";
import { BadResponseError, ConfigError, describeFailure, type Failure, type Phase } from "./errors";
import { SimulatedCluster, type FactsChange, type FactsReport } from "./facts";
import { FactsLoop } from "./facts-loop";
import type { AckEntry, KubeCluster } from "./kube/kube-cluster";
import { createTlsAgent, requestJson } from "./http";
import {
  AGENT_API,
  DEFAULT_INTERVAL_SECONDS,
  isObject,
  parseHeartbeatAnswer,
  parseRegisterAnswer,
  type HeartbeatAnswer,
} from "./protocol";
import { silentLogger, type AgentLogger, type LogCode, type LogFields, type LogLevel } from "./log";
import { certificateLifetime, shouldRotate, type CertLifetime } from "./rotation";
import { StateError, TombstoneError, type AgentState, type ClusterRecord, type StateStore, type Tombstone } from "./state";
import { bundleHasFingerprint, isCaCertificate, pinCa, type TrustSpec } from "./trust";

// The reference agent: registers with a one-time token, then heartbeats over mutual TLS,
// acts on directives, rotates its certificate, and stops cleanly when told to. Everything it
// knows about the server is PROTOCOL.md; it shares no code with the server.

export const EXIT_CODES = { ok: 0, failed: 1, config: 2, rejected: 3 } as const;

/** How often an agent that needs a re-enrolment token looks for one. */
export const REREGISTER_POLL_MS = 60_000;

export type AgentOutcome = "stopped" | "disconnected" | "deregistered" | "rejected" | "config" | "failed";

export interface AgentResult {
  outcome: AgentOutcome;
  exitCode: number;
  /** The log code of the event that ended the run. */
  code: LogCode;
  message: string;
}

/** Where the registration token comes from. The token itself is never logged. */
export interface TokenSource {
  /** The token, or null when there is none (yet). Read on every attempt, so it can be replaced. */
  read(): Promise<string | null>;
  /** After a successful registration (the CLI deletes the token file); a rejection is logged. */
  consumed?(): Promise<void>;
  /** Where the token is, for log lines (a path, never the token). */
  describe: string;
}

export interface HeartbeatInfo {
  seq: number;
  latencyMs: number;
  status: string | null;
  acks: number;
}

/** Callbacks for embedders (the simulator's statistics and fault injection). */
export interface AgentHooks {
  onRegistered?(info: { clusterId: string; reregistered: boolean }): void;
  onHeartbeat?(info: HeartbeatInfo): void;
  onDirective?(directive: Directive): void;
  onRotated?(info: { serial: string; notAfter: number }): void;
  onFailure?(failure: Failure, phase: Phase): void;
}

export interface FleetAgentOptions {
  /** The agent endpoint, e.g. https://127.0.0.1:8443. */
  server: URL | string;
  name: string;
  labels?: Record<string, string>;
  /** Reported at registration; a function when it has to be looked up (kube-public/cluster-info). */
  apiServerUrl?: string | (() => Promise<string>);
  agentVersion?: string;
  kubernetesVersion?: string;
  store: StateStore;
  /** How to trust the server: a CA PEM, a fingerprint pin, or only what the state dir holds. */
  trust: TrustSpec;
  token?: TokenSource;
  /** The cluster's own CA fingerprint (`sha256:<hex>`), resolved only when registering. */
  clusterCaFingerprint: string | (() => Promise<string>);
  /** The facts to report; default: a plausible cluster derived from the name. */
  facts?: SimulatedCluster;
  /**
   * A real cluster: its facts replace the simulated ones, and its directives (upgrade, drain,
   * drainNodePool) are carried out through its API, acknowledged only once done.
   */
  kube?: KubeCluster;
  logger?: AgentLogger;
  clock?: Clock;
  random?: () => number;
  /** Key factory; `current` is the key in use, to be avoided (rotation needs a new key). */
  keys?: (current?: string) => Promise<KeyPair>;
  /** Overrides the server's heartbeatIntervalSeconds (the CLI's --heartbeat-interval, the simulator's --interval). */
  heartbeatIntervalSeconds?: number;
  /** Withhold acks this long after first seeing a directive (the simulator's "late" fault). */
  ackDelayMs?: number;
  requestTimeoutMs?: number;
  backoff?: BackoffPolicy;
  /** Bounds concurrent registrations across many agents (the simulator). */
  registrationSlot?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** An https.Agent without client certificate trusting the same CA, shared by many agents. */
  anonymousAgent?: https.Agent;
  /** Delay before the first heartbeat (the simulator spreads its fleet over the interval). */
  firstHeartbeatDelayMs?: number;
  hooks?: AgentHooks;
}

/** Ends run() with a result; thrown from deep inside the loop. */
class AgentExit extends Error {
  constructor(readonly result: AgentResult) {
    super(result.message);
  }
}

/**
 * Directives about the agent's own standing with the control plane (its certificate, its
 * registration): carried out by the agent whatever the cluster behind it, never by the cluster.
 */
const AGENT_DIRECTIVES: ReadonlySet<string> = new Set(["disconnect", "rotate"]);

const SEMVER = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

function stringParam(d: Directive, ...keys: string[]): string | null {
  for (const key of keys) {
    const v = directiveParam(d, key);
    if (typeof v === "string" && v) return v;
  }
  return null;
}

export class FleetAgent {
  readonly facts: SimulatedCluster;
  private readonly server: URL;
  private readonly logger: AgentLogger;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly acks: AckTracker;
  private readonly abort = new AbortController();
  private readonly timeoutMs: number;
  private readonly backoff: BackoffPolicy;
  private stopped = false;
  private pausedUntil = 0;
  private caPem: string | null = null;
  private state: AgentState | null = null;
  private mtls: https.Agent | null = null;
  private anon: https.Agent | null = null;
  private lifetime: CertLifetime | null = null;
  private lastStatus: string | null = null;
  private disconnectId: string | null = null;
  private heartbeatSeq = 0;
  private lastHeartbeatOkAt = -Infinity;
  private rotateFailures = 0;
  private nextRotateAttempt = 0;
  /** A `rotate` directive (fleet CA rollover) asked for a new certificate now. */
  private rotateRequested = false;
  /** The key every attempt of the registration in progress proves (kept across retries). */
  private registrationKey: KeyPair | null = null;
  /** False after a revocation: a revoked certificate's key is not reused. */
  private keepKey = true;
  private reregistrationNoticed = false;
  /** The real cluster's facts, read on their own schedule (simulated facts need no reading). */
  private readonly factsLoop: FactsLoop | null;

  constructor(private readonly options: FleetAgentOptions) {
    this.server = typeof options.server === "string" ? new URL(options.server) : options.server;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.acks = new AckTracker(options.ackDelayMs ?? 0);
    this.timeoutMs = options.requestTimeoutMs ?? 15_000;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.facts =
      options.facts ??
      SimulatedCluster.typical({
        agentVersion: options.agentVersion ?? "1.4.0",
        kubernetesVersion: options.kubernetesVersion ?? "1.30.2",
        random: seededRandom(hashSeed(options.name)),
      });
    this.factsLoop = options.kube
      ? new FactsLoop(options.kube, {
          clock: this.clock,
          intervalMs: () => this.intervalSeconds() * 1000,
          onError: (err) =>
            this.emit(
              "warn",
              "KUBE_API_ERROR",
              `reading the cluster failed: ${err instanceof Error ? err.message : String(err)}`,
            ),
        })
      : null;
  }

  get clusterId(): string | null {
    return this.state?.cluster.clusterId ?? null;
  }
  /** The status from the last heartbeat answer (Ready, NotReady, Draining, ...). */
  get status(): string | null {
    return this.lastStatus;
  }
  get heartbeats(): number {
    return this.heartbeatSeq;
  }
  /**
   * Registered and a heartbeat accepted within three intervals (at least a minute): what the
   * pod's readiness probe reports. Liveness asks nothing of the control plane.
   */
  get ready(): boolean {
    const window = Math.max(60_000, 3 * this.intervalSeconds() * 1000);
    return !!this.clusterId && this.clock.now() - this.lastHeartbeatOkAt <= window;
  }
  get appliedPolicyRevision(): string | null {
    return this.state?.cluster.appliedPolicyRevision ?? null;
  }
  get certificateSerial(): string | null {
    return this.lifetime?.serial ?? null;
  }

  /** Stops the run: aborts waits and requests in flight; run() resolves with outcome "stopped". */
  stop() {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    this.factsLoop?.close();
  }

  /** Stops heartbeating for `ms`, then resumes (the simulator's "flap" fault). */
  pause(ms: number) {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  async run(): Promise<AgentResult> {
    this.emit("info", "AGENT_START", `fleet agent starting for cluster ${this.options.name}`, {
      server: this.server.origin,
      state: this.options.store.location,
    });
    let result: AgentResult;
    try {
      const loaded = await this.loadState();
      this.caPem = await this.retrying("trust", () => this.establishTrust(loaded));
      if (loaded) this.adopt(loaded);
      else await this.retrying("register", () => this.register(false));
      result = await this.heartbeatLoop();
    } catch (err) {
      result = this.resultOf(err);
    } finally {
      this.factsLoop?.close();
      this.mtls?.destroy();
      if (this.anon !== this.options.anonymousAgent) this.anon?.destroy();
    }
    return result;
  }

  // ---- startup --------------------------------------------------------------------------

  private async loadState(): Promise<AgentState | null> {
    try {
      const state = await this.options.store.load();
      if (this.options.store.recovered) {
        this.emit("warn", "STATE_RECOVERED", "finished a certificate rotation that was interrupted", {
          state: this.options.store.location,
        });
      }
      if (state) {
        this.emit("info", "STATE_LOADED", "found existing registration: skipping registration", {
          clusterId: state.cluster.clusterId,
          state: this.options.store.location,
        });
      }
      return state;
    } catch (err) {
      if (err instanceof TombstoneError) throw await this.idleAfterLeaving(err);
      if (!(err instanceof StateError)) throw err;
      if (await this.tokenAvailable()) {
        this.emit("warn", "STATE_INVALID", `local state is unusable (${err.message}): registering again with the token`, {
          state: this.options.store.location,
        });
        return null;
      }
      throw new ConfigError(
        "STATE_INVALID",
        `local state is unusable (${err.message}): delete ${this.options.store.location} and register again with a new token (--token-file)`,
      );
    }
  }

  /**
   * The cluster left the fleet and something (GitOps re-applying the manifest) started the agent
   * again: one line saying so and how to clean up, then nothing until stopped. Exiting would
   * crash-loop; registering with the used token would be refused.
   */
  private async idleAfterLeaving(err: TombstoneError): Promise<AgentExit> {
    this.emit("warn", "STATE_TOMBSTONE", err.message, { state: this.options.store.location });
    while (!this.stopped) await this.sleep(REREGISTER_POLL_MS);
    return this.stoppedExit();
  }

  private async establishTrust(loaded: AgentState | null): Promise<string> {
    const trust = this.options.trust;
    if ("caPem" in trust) {
      this.emit("info", "TRUST_CA_FILE", "trusting only the fleet CA from --ca-file", {
        fingerprint: certificateFingerprint(trust.caPem),
      });
      return trust.caPem;
    }
    if ("caFingerprint" in trust) {
      // The stored bundle may have grown through a CA rollover: the pin needs to be one of it.
      if (loaded && bundleHasFingerprint(loaded.caPem, trust.caFingerprint)) {
        this.emit("info", "TRUST_PIN_VERIFIED", "the stored fleet CA matches the pinned fingerprint", {
          fingerprint: trust.caFingerprint,
        });
        return loaded.caPem;
      }
      let caPem: string;
      try {
        caPem = await pinCa(this.server, trust.caFingerprint, { timeoutMs: this.timeoutMs, signal: this.abort.signal });
      } catch (err) {
        // After a fleet CA rollover the pinned CA is retired: the stored CAs, adopted over
        // connections verified from the pin onwards, are the trust now (when our certificate
        // chains to them); the pin in the agent's configuration is merely out of date.
        if (!(err instanceof ConfigError) || err.code !== "TRUST_PIN_MISMATCH" || !loaded) throw err;
        if (!issuedBy(loaded.certPem, loaded.caPem)) throw err;
        this.emit(
          "warn",
          "TRUST_STATE_CA",
          `the pinned fleet CA was rolled over: trusting the CA(s) stored in the state dir; update --ca-fingerprint to ${certificateFingerprint(loaded.caPem)}`,
          { pinned: trust.caFingerprint },
        );
        return loaded.caPem;
      }
      this.emit(
        "info",
        "TRUST_PIN_VERIFIED",
        "fetched the fleet CA, checked it against the pin and verified the server with it",
        {
          fingerprint: trust.caFingerprint,
        },
      );
      return caPem;
    }
    if (loaded) {
      this.emit("info", "TRUST_STATE_CA", "trusting the fleet CA stored at registration", {
        fingerprint: certificateFingerprint(loaded.caPem),
      });
      return loaded.caPem;
    }
    throw new ConfigError(
      "TRUST_MISSING",
      "no way to trust the server: pass --ca-file <fleet CA PEM> or --ca-fingerprint sha256:<hex> (the console shows both where registration tokens are minted)",
    );
  }

  private adopt(state: AgentState) {
    this.state = state;
    this.lifetime = certificateLifetime(state.certPem);
    const old = this.mtls;
    this.mtls = createTlsAgent(this.requireCa(), { keyPem: state.keyPem, certPem: state.certPem });
    old?.destroy();
    // A simulated upgrade survives restarts: the stored versions are what the cluster runs now.
    if (this.options.kube) return;
    if (state.cluster.agentVersion) this.facts.agentVersion = state.cluster.agentVersion;
    if (state.cluster.kubernetesVersion) this.facts.kubernetesVersion = state.cluster.kubernetesVersion;
  }

  private requireCa(): string {
    if (!this.caPem) throw new Error("fleet CA not established");
    return this.caPem;
  }

  private anonymousAgent(): https.Agent {
    this.anon ??= this.options.anonymousAgent ?? createTlsAgent(this.requireCa(), undefined, { keepAlive: true });
    return this.anon;
  }

  private async tokenAvailable(): Promise<boolean> {
    return !!this.options.token && !!(await this.options.token.read().catch(() => null));
  }

  private async clusterCaFingerprint(): Promise<string> {
    const source = this.options.clusterCaFingerprint;
    return typeof source === "string" ? source : source();
  }

  private async newKeys(): Promise<KeyPair> {
    return this.options.keys ? this.options.keys(this.state?.keyPem) : generateRsaKeyPair();
  }

  // ---- registration ---------------------------------------------------------------------

  /**
   * The key a registration proves. A retry after a lost answer must present the key of the
   * certificate the server may already have issued (PROTOCOL.md, Re-registration (a)), so the key
   * is chosen once per registration and written down before the first attempt: a restart in
   * between finds it again. Re-registering an agent that holds a certificate (expired past the
   * renewal grace, say) proves the same kept key, unless that certificate was revoked.
   */
  private async registrationKeys(): Promise<KeyPair> {
    if (this.registrationKey) return this.registrationKey;
    let keys: KeyPair | null = null;
    if (this.state && this.keepKey) keys = keyPairFromPrivateKey(this.state.keyPem);
    const store = this.options.store;
    if (!keys && !this.state) {
      const pending = await this.localStep("read the pending registration key", () => store.loadPendingKey());
      if (pending) keys = keyPairFromPrivateKey(pending);
    }
    if (!keys) {
      const fresh = await this.newKeys();
      await this.localStep(`keep the registration key in ${store.location}`, () => store.savePendingKey(fresh.privateKeyPem));
      keys = fresh;
    }
    this.registrationKey = keys;
    return keys;
  }

  private async register(reregister: boolean): Promise<void> {
    const token = this.options.token ? await this.options.token.read() : null;
    if (!token) {
      throw new ConfigError(
        "TOKEN_FILE_MISSING",
        `no registration token${this.options.token ? ` in ${this.options.token.describe}` : ""}: mint one in the console (Tokens) and write it to --token-file`,
      );
    }
    const caFingerprint =
      this.state?.cluster.clusterCaFingerprint ||
      (await this.localStep("read the cluster CA", () => this.clusterCaFingerprint()));
    await this.factsLoop?.ready();
    this.currentFacts();
    const apiServerUrl =
      typeof this.options.apiServerUrl === "function"
        ? await this.options.apiServerUrl()
        : (this.options.apiServerUrl ?? "https://kubernetes.default.svc:443");
    // Key, CSR and request all run inside the registration slot: with thousands of simulated
    // agents the CPU work (signing the CSR) is bounded too, not only the requests.
    const attempt = async () => {
      const keys = await this.registrationKeys();
      const body = {
        name: this.options.name,
        apiServerUrl,
        caFingerprint,
        agentVersion: this.facts.agentVersion,
        kubernetesVersion: this.options.kube ? this.options.kube.kubernetesVersion : this.facts.kubernetesVersion,
        labels: this.options.labels ?? {},
        csr: buildCsr(keys, this.options.name),
      };
      this.emit("info", reregister ? "REREGISTERING" : "REGISTERING", `registering cluster ${this.options.name}`, {
        server: this.server.origin,
        token: this.options.token?.describe,
      });
      const raw = await requestJson(
        this.server,
        AGENT_API.register,
        {
          method: "POST",
          agent: this.anonymousAgent(),
          headers: { authorization: `Bearer ${token}` },
          body,
          timeoutMs: this.timeoutMs,
          signal: this.abort.signal,
        },
        this.clock.now(),
      );
      return { keys, answer: parseRegisterAnswer(raw) };
    };
    const { keys, answer } = await (this.options.registrationSlot ? this.options.registrationSlot(attempt) : attempt());
    // Over TLS verified with the CA(s) we trust: during a CA rollover the answer names the
    // incoming CA too, which signed our certificate.
    if (answer.caCertificate && pemCertificates(answer.caCertificate).length > 1) await this.adoptBundle(answer.caCertificate);
    const caPem = this.requireCa();
    if (!certificateMatchesKey(answer.certificate, keys.privateKeyPem)) {
      throw new BadResponseError("the issued certificate does not carry the public key of our CSR");
    }
    if (!issuedBy(answer.certificate, caPem))
      throw new BadResponseError("the issued certificate is not signed by the trusted fleet CA");
    if (answer.caCertificate) {
      const served = firstPemBlock(answer.caCertificate);
      if (!served || certificateFingerprint(served) !== certificateFingerprint(caPem)) {
        this.emit(
          "warn",
          "CA_MISMATCH",
          "the registration answer names a different fleet CA than the one trusted: keeping the trusted one",
        );
      }
    }
    const previous = this.state?.cluster;
    const cluster: ClusterRecord = {
      clusterId: answer.clusterId,
      name: this.options.name,
      serverUrl: this.server.origin,
      registeredAt: new Date(this.clock.now()).toISOString(),
      heartbeatIntervalSeconds: answer.heartbeatIntervalSeconds,
      heartbeatPath: answer.heartbeatPath,
      clusterCaFingerprint: caFingerprint,
      agentVersion: this.facts.agentVersion,
      kubernetesVersion: this.facts.kubernetesVersion,
      appliedPolicyRevision: previous?.appliedPolicyRevision ?? null,
    };
    const state: AgentState = { keyPem: keys.privateKeyPem, certPem: answer.certificate, caPem, cluster };
    await this.saveRegistration(state);
    this.adopt(state);
    this.registrationKey = null;
    this.keepKey = true;
    this.reregistrationNoticed = false;
    this.emit("info", "REGISTERED", `registered as ${answer.clusterId}`, {
      clusterId: answer.clusterId,
      interval: `${answer.heartbeatIntervalSeconds}s`,
      serial: this.lifetime?.serial,
    });
    if (previous && previous.clusterId !== answer.clusterId) {
      this.emit("warn", "REGISTERED", "the server assigned a different cluster id on re-registration", {
        previous: previous.clusterId,
      });
    }
    if (this.options.token?.consumed) {
      try {
        await this.options.token.consumed();
        this.emit("info", "TOKEN_FILE_DELETED", `deleted the used token file ${this.options.token.describe}`);
      } catch (err) {
        this.emit(
          "warn",
          "TOKEN_FILE_NOT_DELETED",
          `could not delete the used token file ${this.options.token.describe} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): delete it yourself, and revoke the token if it has uses left`,
        );
      }
    }
    this.options.hooks?.onRegistered?.({ clusterId: answer.clusterId, reregistered: reregister });
  }

  /**
   * The server has issued a certificate: exiting now would lose it (and a token use). A write that
   * fails (the state Secret's API busy, a full disk) is retried with backoff until it succeeds.
   */
  private async saveRegistration(state: AgentState): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.store.save(state);
        return;
      } catch (err) {
        if (this.stopped) throw this.stoppedExit();
        const delay = backoffDelay(attempt, this.random, this.backoff);
        this.emit(
          "warn",
          "STATE_SAVE_FAILED",
          `registered, but could not write ${this.options.store.location}: ${(err as Error).message}; retrying (the new certificate is kept in memory meanwhile)`,
          { retryIn: `${(delay / 1000).toFixed(1)}s` },
        );
        await this.sleep(delay);
      }
    }
  }

  /** Local I/O failures (permissions, full disk) are configuration problems, not network ones. */
  private async localStep<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError("CONFIG_INVALID", `could not ${what}: ${(err as Error).message}`);
    }
  }

  // ---- heartbeats -----------------------------------------------------------------------

  private intervalSeconds(): number {
    return this.options.heartbeatIntervalSeconds ?? this.state?.cluster.heartbeatIntervalSeconds ?? DEFAULT_INTERVAL_SECONDS;
  }

  private async heartbeatLoop(): Promise<AgentResult> {
    let failures = 0;
    let delay = this.options.firstHeartbeatDelayMs ?? 0;
    for (;;) {
      await this.sleep(delay);
      while (!this.stopped && this.clock.now() < this.pausedUntil) await this.sleep(this.pausedUntil - this.clock.now());
      if (this.stopped) throw this.stoppedExit();
      await this.maybeRotate();
      try {
        const { answer, sentAcks } = await this.heartbeat();
        failures = 0;
        if (this.disconnectId && sentAcks.includes(this.disconnectId)) return await this.disconnected();
        await this.handleAnswer(answer);
        delay = jitteredInterval(this.intervalSeconds(), this.random);
        if (this.disconnectId) {
          // Send the final heartbeat (carrying the ack) now, or as soon as a late ack is due.
          const due = this.acks.isAckDue(this.disconnectId, this.clock.now())
            ? 0
            : (this.acks.nextDueAt(this.clock.now()) ?? 0) - this.clock.now();
          delay = Math.max(0, Math.min(delay, due));
        }
      } catch (err) {
        if (err instanceof AgentExit) throw err;
        const failure = describeFailure(err, "heartbeat", this.server);
        if (this.stopped || failure.action === "stopped") throw this.stoppedExit();
        if (failure.action === "deregistered") throw await this.deregistered(failure, "heartbeat");
        if (failure.action === "reregister") {
          // A revoked certificate's key is not proved again; an expired one's is (kept key).
          if (failure.code === "CERTIFICATE_REVOKED") this.keepKey = false;
          if (await this.tokenAvailable()) {
            this.report(failure, "heartbeat");
            await this.retrying("register", () => this.register(true));
            delay = 0;
            failures = 0;
            continue;
          }
          delay = Math.max(REREGISTER_POLL_MS, this.retryDelay(failure, failures++));
          this.awaitReregistration(failure, delay);
          continue;
        }
        delay = this.retryDelay(failure, failures++);
        this.report(failure, "heartbeat", delay);
      }
    }
  }

  /**
   * One clear line the first time (what happened, what the admin must do), then quiet retries at
   * a slow pace until a token appears: a fleet of stranded agents must not hammer the server.
   */
  private awaitReregistration(failure: Failure, delayMs: number) {
    this.options.hooks?.onFailure?.(failure, "heartbeat");
    const first = !this.reregistrationNoticed;
    this.reregistrationNoticed = true;
    const where = this.options.token?.describe ?? "the token file";
    this.emit(
      first ? "error" : "debug",
      "REREGISTRATION_NEEDED",
      `the control plane no longer accepts this agent's certificate (${failure.code}): an admin must mint a re-enrolment token (cluster page, "Re-enrol") and put it in ${where}; the agent ${this.keepKey ? "keeps its key and " : ""}checks for it every ${Math.round(delayMs / 1000)}s`,
      { cause: failure.code, status: failure.status, clusterId: this.clusterId },
    );
  }

  /** The facts to report now; their versions are what the state records the cluster runs. */
  private currentFacts(): FactsReport {
    const facts = this.factsLoop?.report() ?? this.facts.report();
    this.facts.agentVersion = facts.agentVersion;
    // None until /version has answered: the heartbeat sends none and the last known one stays.
    if (facts.kubernetesVersion) this.facts.kubernetesVersion = facts.kubernetesVersion;
    return facts;
  }

  private heartbeatBody(acks: AckEntry[]) {
    const revision = this.state?.cluster.appliedPolicyRevision ?? null;
    const kube = this.options.kube;
    const facts = this.currentFacts();
    return {
      ...facts,
      // Rotation is the agent's own; the rest is what the cluster access allows (node actions may be off).
      capabilities: kube ? [...new Set([...kube.capabilities, "rotate"])] : [...AGENT_CAPABILITIES],
      ...(revision !== null ? { policy: { appliedRevision: revision } } : {}),
      acks,
    };
  }

  private async heartbeat(): Promise<{ answer: HeartbeatAnswer; sentAcks: string[] }> {
    const state = this.state;
    if (!state || !this.mtls) throw new Error("heartbeat before registration");
    // The first heartbeat waits for the first read of the cluster; later ones never wait.
    await this.factsLoop?.ready();
    const ids = this.acks.acks(this.clock.now());
    const acks: AckEntry[] = this.options.kube ? this.options.kube.ackEntries(ids) : ids;
    const sent = acks.map((a) => (typeof a === "string" ? a : a.id));
    const started = performance.now();
    const raw = await requestJson(
      this.server,
      state.cluster.heartbeatPath,
      { method: "POST", agent: this.mtls, body: this.heartbeatBody(acks), timeoutMs: this.timeoutMs, signal: this.abort.signal },
      this.clock.now(),
    );
    const latencyMs = performance.now() - started;
    const answer = parseHeartbeatAnswer(raw);
    this.heartbeatSeq += 1;
    this.lastHeartbeatOkAt = this.clock.now();
    this.emit("debug", "HEARTBEAT_OK", "heartbeat accepted", {
      seq: this.heartbeatSeq,
      status: answer.status,
      latencyMs: Math.round(latencyMs),
      acks: acks.length || undefined,
    });
    this.options.hooks?.onHeartbeat?.({ seq: this.heartbeatSeq, latencyMs, status: answer.status, acks: acks.length });
    return { answer, sentAcks: sent };
  }

  private async handleAnswer(answer: HeartbeatAnswer): Promise<void> {
    const state = this.state;
    if (!state) return;
    const cluster = { ...state.cluster };
    let dirty = false;

    if (answer.status && answer.status !== this.lastStatus) {
      this.emit("info", "STATUS_CHANGED", `control plane reports ${answer.status}`, {
        from: this.lastStatus ?? "none",
        to: answer.status,
      });
      this.lastStatus = answer.status;
    }
    if (answer.heartbeatIntervalSeconds && answer.heartbeatIntervalSeconds !== cluster.heartbeatIntervalSeconds) {
      // With an override in effect the server's value changes nothing now: debug only.
      const level = this.options.heartbeatIntervalSeconds ? "debug" : "info";
      this.emit(level, "INTERVAL_CHANGED", `the server's heartbeat interval is now ${answer.heartbeatIntervalSeconds}s`, {
        from: cluster.heartbeatIntervalSeconds,
        override: this.options.heartbeatIntervalSeconds,
      });
      cluster.heartbeatIntervalSeconds = answer.heartbeatIntervalSeconds;
      dirty = true;
    }

    // Trust first: a `rotate` directive in the same answer yields a certificate from the new CA.
    if (answer.caBundle) await this.adoptBundle(answer.caBundle);

    // Directives seen in earlier answers progress first; new ones start from this answer.
    if (!this.options.kube) for (const change of this.facts.tick()) this.logChange(change);
    for (const directive of this.acks.observe(answer.directives, this.clock.now())) this.applyDirective(directive);

    if (this.facts.agentVersion !== cluster.agentVersion || this.facts.kubernetesVersion !== cluster.kubernetesVersion) {
      cluster.agentVersion = this.facts.agentVersion;
      cluster.kubernetesVersion = this.facts.kubernetesVersion;
      dirty = true;
    }
    if (answer.desiredPolicyRevision !== null && answer.desiredPolicyRevision !== cluster.appliedPolicyRevision) {
      // "Applying" is instant here; the next heartbeat reports the revision as applied.
      this.emit("info", "POLICY_APPLIED", `applied policy revision ${answer.desiredPolicyRevision}`, {
        from: cluster.appliedPolicyRevision ?? "none",
        to: answer.desiredPolicyRevision,
      });
      cluster.appliedPolicyRevision = answer.desiredPolicyRevision;
      dirty = true;
    }
    if (dirty) {
      this.state = { ...state, cluster };
      await this.options.store.saveCluster(cluster);
    }
  }

  private logChange(change: FactsChange) {
    switch (change.kind) {
      case "upgrade-complete":
        this.emit("info", "UPGRADE_COMPLETE", "upgrade finished: reporting the new version", {
          agentVersion: change.agentVersion,
          kubernetesVersion: change.kubernetesVersion,
        });
        break;
      case "pool-removed":
        this.emit("info", "NODE_POOL_REMOVED", `node pool ${change.name} drained and removed`, { nodePool: change.name });
        break;
      case "drain-complete":
        this.emit("info", "DRAIN_COMPLETE", "all workloads drained");
        break;
    }
  }

  private applyDirective(d: Directive) {
    this.options.hooks?.onDirective?.(d);
    this.emit("debug", "DIRECTIVE_RECEIVED", `directive ${d.type}`, { id: d.id, type: d.type });
    if (this.options.kube && !AGENT_DIRECTIVES.has(d.type)) {
      this.emit("info", "DIRECTIVE_RECEIVED", `directive ${d.type}: carrying it out in the cluster`, { id: d.id, type: d.type });
      this.options.kube.start(d);
      this.factsLoop?.wake();
      return;
    }
    switch (d.type) {
      case "disconnect":
        this.disconnectId = d.id;
        this.emit(
          "info",
          "DISCONNECT",
          "disconnect requested: acknowledging, sending a final heartbeat, then deleting local state",
          { id: d.id },
        );
        return;
      case "rotate":
        this.rotateRequested = true;
        this.nextRotateAttempt = 0;
        this.emit("info", "ROTATE_REQUESTED", "the control plane asked for a new certificate (fleet CA rollover)", {
          id: d.id,
        });
        return;
      case "drain":
        this.facts.startDrain();
        this.emit("info", "DRAIN", "drain requested: evicting workloads", { id: d.id, pods: this.facts.workloads.pods });
        return;
      case "upgrade": {
        const version = stringParam(d, "version", "agentVersion");
        const kubernetes = stringParam(d, "kubernetesVersion") ?? (stringParam(d, "component") === "kubernetes" ? version : null);
        const agent = stringParam(d, "component") === "kubernetes" ? null : version;
        if ((!agent && !kubernetes) || (agent && !SEMVER.test(agent)) || (kubernetes && !SEMVER.test(kubernetes))) {
          this.emit("warn", "DIRECTIVE_INVALID", "upgrade directive without a valid semver version: acknowledged and ignored", {
            id: d.id,
          });
          return;
        }
        this.facts.startUpgrade({
          agentVersion: agent ?? undefined,
          kubernetesVersion: kubernetes?.replace(/^v/, "") ?? undefined,
        });
        this.emit("info", "UPGRADE_STARTED", "upgrade requested", {
          id: d.id,
          from: this.facts.agentVersion,
          agentVersion: agent ?? undefined,
          kubernetesVersion: kubernetes ?? undefined,
        });
        return;
      }
      case "drainNodePool": {
        const pool = stringParam(d, "nodePool", "name");
        if (!pool || !this.facts.startNodePoolDrain(pool)) {
          this.emit(
            "warn",
            "DIRECTIVE_INVALID",
            `drainNodePool names no node pool of this cluster (${pool ?? "none"}): acknowledged and ignored`,
            {
              id: d.id,
            },
          );
          return;
        }
        this.emit("info", "NODE_POOL_DRAIN", `draining node pool ${pool}`, { id: d.id, nodePool: pool });
        return;
      }
      default:
        this.emit(
          "warn",
          "DIRECTIVE_UNKNOWN",
          `unknown directive type "${d.type}": acknowledged and ignored (a newer agent may support it)`,
          {
            id: d.id,
          },
        );
    }
  }

  // ---- certificate rotation -------------------------------------------------------------

  private async maybeRotate(): Promise<void> {
    const state = this.state;
    const now = this.clock.now();
    if (!state || !this.lifetime || now < this.nextRotateAttempt) return;
    if (!this.rotateRequested && !shouldRotate(this.lifetime, now)) return;
    if (!this.rotateRequested) {
      this.emit("info", "ROTATE_DUE", "a third or less of the certificate's lifetime remains: rotating", {
        notAfter: new Date(this.lifetime.notAfter).toISOString(),
      });
    }
    try {
      const keys = await this.newKeys();
      const raw = await requestJson(
        this.server,
        AGENT_API.rotate,
        {
          method: "POST",
          agent: this.mtls!,
          body: { csr: buildCsr(keys, this.options.name) },
          timeoutMs: this.timeoutMs,
          signal: this.abort.signal,
        },
        now,
      );
      const certificate = isObject(raw) && typeof raw.certificate === "string" ? firstPemBlock(raw.certificate) : null;
      if (!certificate) throw new BadResponseError("rotation answer has no PEM certificate");
      if (!certificateMatchesKey(certificate, keys.privateKeyPem))
        throw new BadResponseError("the rotated certificate does not carry our new key");
      if (!issuedBy(certificate, this.requireCa()))
        throw new BadResponseError("the rotated certificate is not signed by the trusted fleet CA");
      // Disk first (atomically), then memory: a crash in between restarts with the new pair.
      await this.options.store.saveIdentity(keys.privateKeyPem, certificate);
      this.adopt({ ...state, keyPem: keys.privateKeyPem, certPem: certificate });
      this.rotateFailures = 0;
      this.rotateRequested = false;
      const lifetime = this.lifetime!;
      this.emit("info", "ROTATED", "switched to the new certificate", {
        serial: lifetime.serial,
        notAfter: new Date(lifetime.notAfter).toISOString(),
      });
      this.options.hooks?.onRotated?.({ serial: lifetime.serial, notAfter: lifetime.notAfter });
    } catch (err) {
      if (err instanceof AgentExit) throw err;
      const failure = describeFailure(err, "rotate", this.server);
      if (this.stopped || failure.action === "stopped") throw this.stoppedExit();
      if (failure.action === "deregistered") throw await this.deregistered(failure, "rotate");
      const retryIn = Math.max(1_000, this.retryDelay(failure, this.rotateFailures++));
      this.nextRotateAttempt = this.clock.now() + retryIn;
      this.options.hooks?.onFailure?.(failure, "rotate");
      this.emit("warn", "ROTATE_FAILED", `certificate rotation failed, keeping the current certificate: ${failure.message}`, {
        cause: failure.code,
        retryIn: `${(retryIn / 1000).toFixed(1)}s`,
      });
    }
  }

  /**
   * Trusts exactly the CAs of a bundle the control plane sent over TLS this agent already
   * verified (a CA rollover: the incoming CA is added before the server switches to it, the
   * retired one dropped after). Saved to the state dir first, then used for new connections.
   */
  private async adoptBundle(bundlePem: string): Promise<void> {
    const certs = pemCertificates(bundlePem);
    if (!certs.length || !certs.every(isCaCertificate)) {
      this.emit("warn", "CA_MISMATCH", "the control plane sent a CA bundle that is not all CA certificates: ignored");
      return;
    }
    const next = certs.join("");
    const current = this.caPem ? pemCertificates(this.caPem).join("") : null;
    if (next === current) return;
    this.caPem = next;
    if (this.anon && this.anon !== this.options.anonymousAgent) {
      this.anon.destroy();
      this.anon = null;
    }
    const state = this.state;
    if (state) {
      await this.localStep(`write the state dir ${this.options.store.location}`, () =>
        this.options.store.save({ ...state, caPem: next }),
      );
      this.adopt({ ...state, caPem: next });
    }
    this.emit("info", "CA_BUNDLE_UPDATED", `now trusting ${certs.length} fleet CA(s)`, {
      fingerprints: certs.map((c) => certificateFingerprint(c)).join(","),
    });
  }

  // ---- endings --------------------------------------------------------------------------

  /**
   * In a cluster, after the state is gone: scale the agent's own Deployment to 0 (else Kubernetes
   * restarts it), drop its privileges and say what is left for the admin to remove.
   */
  private async leaveCluster() {
    await this.options.kube?.leave();
  }

  private tombstone(reason: Tombstone["reason"]): Tombstone {
    return { clusterId: this.clusterId, name: this.options.name, reason, at: new Date(this.clock.now()).toISOString() };
  }

  private async disconnected(): Promise<AgentResult> {
    await this.options.store.destroy(this.tombstone("disconnected"));
    this.emit("info", "STATE_DELETED", "deleted local state", { state: this.options.store.location });
    await this.leaveCluster();
    const result: AgentResult = {
      outcome: "disconnected",
      exitCode: EXIT_CODES.ok,
      code: "DISCONNECTED",
      message: "disconnected by the control plane: final heartbeat sent, local state deleted",
    };
    this.emit("info", "DISCONNECTED", result.message, { clusterId: this.clusterId });
    return result;
  }

  private async deregistered(failure: Failure, phase: Phase): Promise<AgentExit> {
    this.report(failure, phase);
    await this.options.store.destroy(this.tombstone("deregistered"));
    this.emit("info", "STATE_DELETED", "deleted local state", { state: this.options.store.location });
    await this.leaveCluster();
    return new AgentExit({
      outcome: "deregistered",
      exitCode: EXIT_CODES.ok,
      code: "CLUSTER_DEREGISTERED",
      message: failure.message,
    });
  }

  private stoppedExit(): AgentExit {
    return new AgentExit({ outcome: "stopped", exitCode: EXIT_CODES.ok, code: "AGENT_STOPPED", message: "stopped" });
  }

  private resultOf(err: unknown): AgentResult {
    if (err instanceof AgentExit) {
      if (err.result.outcome === "stopped") this.emit("info", "AGENT_STOPPED", "stopped");
      return err.result;
    }
    if (err instanceof ConfigError) {
      this.emit("error", err.code, err.message);
      return { outcome: "config", exitCode: EXIT_CODES.config, code: err.code, message: err.message };
    }
    const message = `unexpected failure: ${err instanceof Error ? err.message : String(err)}`;
    this.emit("error", "AGENT_FAILED", message);
    return { outcome: "failed", exitCode: EXIT_CODES.failed, code: "AGENT_FAILED", message };
  }

  // ---- plumbing -------------------------------------------------------------------------

  /** Runs `fn` until it succeeds, with backoff; refusals and deregistration end the run. */
  private async retrying<T>(phase: Phase, fn: () => Promise<T>): Promise<T> {
    let attempt = 0;
    for (;;) {
      if (this.stopped) throw this.stoppedExit();
      try {
        return await fn();
      } catch (err) {
        if (err instanceof AgentExit || err instanceof ConfigError) throw err;
        const failure = describeFailure(err, phase, this.server);
        if (this.stopped || failure.action === "stopped") throw this.stoppedExit();
        if (failure.action === "deregistered") throw await this.deregistered(failure, phase);
        if (failure.action === "reject") {
          this.report(failure, phase);
          throw new AgentExit({
            outcome: "rejected",
            exitCode: EXIT_CODES.rejected,
            code: failure.code,
            message: failure.message,
          });
        }
        const delay = this.retryDelay(failure, attempt++);
        this.report(failure, phase, delay);
        await this.sleep(delay);
      }
    }
  }

  /**
   * Full-jitter backoff; after a Retry-After never earlier than it, jittered over at least as long
   * again: agents that were told "5 s" together must not all come back in the same second. The
   * wait happens on the same keep-alive connection (an overloaded server is not sent a new TLS
   * handshake on top).
   */
  private retryDelay(failure: Failure, attempt: number): number {
    return failure.retryAfterMs === undefined
      ? backoffDelay(attempt, this.random, this.backoff)
      : retryAfterDelay(failure.retryAfterMs, attempt, this.random, this.backoff);
  }

  private report(failure: Failure, phase: Phase, retryInMs?: number) {
    this.options.hooks?.onFailure?.(failure, phase);
    this.emit(failure.level, failure.code, failure.message, {
      phase,
      status: failure.status,
      retryIn: retryInMs === undefined ? undefined : `${(retryInMs / 1000).toFixed(1)}s`,
    });
  }

  private sleep(ms: number): Promise<void> {
    return ms > 0 || this.stopped ? this.clock.sleep(ms, this.abort.signal) : Promise.resolve();
  }

  private emit(level: LogLevel, code: LogCode, message: string, fields?: LogFields) {
    this.logger.log({ level, code, message, fields: { cluster: this.options.name, ...fields } });
  }
}
