import crypto from "node:crypto";
import type https from "node:https";
import { backoffDelay, cappedAt, DEFAULT_BACKOFF, retryAfterDelay, type BackoffPolicy } from "./backoff";
import { systemClock, type Clock } from "./clock";
import type { ClusterBackend } from "./cluster-backend";
import { generateRsaKeyPair, type KeyPair } from "./csr";
import { ConfigError, describeFailure, type Failure, type Phase } from "./errors";
import type { FactsReport } from "./facts";
import { factsDriver, type FactsDriver } from "./facts-loop";
import { createTlsAgent } from "./http";
import { silentLogger, type AgentLogger, type LogCode, type LogFields, type LogLevel } from "./log";
import { DEFAULT_INTERVAL_SECONDS } from "./protocol";
import { certificateLifetime, type CertLifetime } from "./rotation";
import { StateUnavailableError, type AgentState, type Tombstone } from "./state";
import { DEFAULT_KUBERNETES_VERSION } from "../domain/semver";
import { errorText } from "../domain/error-text";
import { AgentExit, EXIT_CODES, REREGISTER_POLL_MS, type FleetAgentOptions } from "./agent-options";

// What the parts of a running agent share (trust, registration, rotation, the run loop): its
// options, its standing with the control plane (state, certificate, TLS agents) and the plumbing
// every part uses (logging, waiting, retrying, ending the run).

export class AgentContext {
  readonly server: URL;
  readonly logger: AgentLogger;
  readonly clock: Clock;
  readonly random: () => number;
  readonly abort = new AbortController();
  readonly timeoutMs: number;
  readonly backoff: BackoffPolicy;
  readonly backend: ClusterBackend;
  /** Moves the backend's facts on at its pace (a real cluster's on their own schedule). */
  readonly facts: FactsDriver;
  stopped = false;
  caPem: string | null = null;
  state: AgentState | null = null;
  mtls: https.Agent | null = null;
  anon: https.Agent | null = null;
  lifetime: CertLifetime | null = null;
  /** Why the agent is not Ready while it idles (no token, a tombstone, another cluster's state): /readyz says it. */
  waiting: string | null = null;
  /** The last token a registration was sent with (a refusal waits for a different one). */
  lastToken: string | null = null;
  private usedTokenNoticed = false;
  /** The versions the cluster was last reported running: what the state records. */
  readonly versions: { agentVersion: string; kubernetesVersion: string };

  constructor(readonly options: FleetAgentOptions) {
    this.server = typeof options.server === "string" ? new URL(options.server) : options.server;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.requestTimeoutMs ?? 15_000;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.backend =
      typeof options.cluster === "function"
        ? options.cluster((level, code, message, fields) => this.emit(level, code, message, fields))
        : options.cluster;
    const first = this.backend.report();
    this.versions = {
      agentVersion: first.agentVersion,
      // A real cluster's API server has not told its version yet: the configured one until it does.
      kubernetesVersion: first.kubernetesVersion ?? options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION,
    };
    this.facts = factsDriver(this.backend, {
      clock: this.clock,
      intervalMs: () => this.intervalSeconds() * 1000,
      onError: (err) => this.emit("warn", "KUBE_API_ERROR", `reading the cluster failed: ${errorText(err)}`),
    });
  }

  get clusterId(): string | null {
    return this.state?.cluster.clusterId ?? null;
  }

  intervalSeconds(): number {
    return this.options.heartbeatIntervalSeconds ?? this.state?.cluster.heartbeatIntervalSeconds ?? DEFAULT_INTERVAL_SECONDS;
  }

  /** The facts to report now; their versions are what the state records the cluster runs. */
  currentFacts(): FactsReport {
    const facts = this.facts.report();
    this.versions.agentVersion = facts.agentVersion;
    // None until /version has answered: the heartbeat sends none and the last known one stays.
    if (facts.kubernetesVersion) this.versions.kubernetesVersion = facts.kubernetesVersion;
    return facts;
  }

  /**
   * After the interval may have changed (an identity adopted, the server naming another): the
   * facts loop may be asleep for the old one (30 s before registering), so it reads again now, on
   * the new pace, rather than at the end of that sleep.
   */
  followInterval(before: number) {
    if (this.intervalSeconds() !== before) this.facts.wake();
  }

  adopt(state: AgentState) {
    const interval = this.intervalSeconds();
    this.state = state;
    this.followInterval(interval);
    this.waiting = null;
    this.lifetime = certificateLifetime(state.certPem);
    const old = this.mtls;
    this.mtls = createTlsAgent(
      this.requireCa(),
      { keyPem: state.keyPem, certPem: state.certPem },
      { keepAlive: !this.options.closeConnections },
    );
    old?.destroy();
    this.backend.restore?.(state.cluster);
  }

  requireCa(): string {
    if (!this.caPem) throw new Error("fleet CA not established");
    return this.caPem;
  }

  anonymousAgent(): https.Agent {
    this.anon ??= this.options.anonymousAgent ?? createTlsAgent(this.requireCa(), undefined, { keepAlive: true });
    return this.anon;
  }

  /** Drops the anonymous agent (it trusts a CA bundle that changed); a shared one is the embedder's. */
  dropAnonymousAgent() {
    if (this.anon && this.anon !== this.options.anonymousAgent) {
      this.anon.destroy();
      this.anon = null;
    }
  }

  /**
   * The registration token, unless it is the one this identity was registered with: a token
   * deleted once used and put back (GitOps re-applying its Secret) is used up. It is ignored, said
   * once, and its Secret left alone (deleting it again would only start a fight with the sync).
   */
  async readToken(): Promise<string | null> {
    const source = this.options.token;
    const token = source ? await source.read() : null;
    if (!token || !source?.consumed) return token;
    const used = this.state?.cluster.usedTokenSha256;
    if (!used || tokenSha256(token) !== used) return token;
    if (!this.usedTokenNoticed) {
      this.usedTokenNoticed = true;
      this.emit(
        "info",
        "TOKEN_ALREADY_USED",
        `the token in ${source.describe} is the one this agent registered with (used up; put back by a GitOps sync?): ignoring it and leaving it where it is`,
      );
    }
    return null;
  }

  async tokenAvailable(): Promise<boolean> {
    return !!(await this.readToken().catch(() => null));
  }

  async newKeys(): Promise<KeyPair> {
    return this.options.keys ? this.options.keys(this.state?.keyPem) : generateRsaKeyPair();
  }

  /**
   * A step on the state store, retried with backoff while the store is unavailable (its API busy,
   * restarting or throttling: StateUnavailableError); any other failure is the caller's.
   */
  async storeStep<T>(what: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof StateUnavailableError)) throw err;
        if (this.stopped) throw this.stoppedExit();
        const delay = backoffDelay(attempt, this.random, this.backoff);
        this.emit("warn", "STATE_UNAVAILABLE", `could not ${what}: ${err.message}; retrying`, {
          retryIn: `${(delay / 1000).toFixed(1)}s`,
        });
        await this.sleep(delay);
        if (this.stopped) throw this.stoppedExit();
      }
    }
  }

  /**
   * Local I/O failures (permissions, full disk, a Secret RBAC does not grant) are configuration
   * problems, not network ones; a state store that is only unavailable for now is waited for.
   */
  async localStep<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.storeStep(what, fn);
    } catch (err) {
      if (err instanceof AgentExit) throw err;
      if (err instanceof ConfigError) throw err;
      throw new ConfigError("CONFIG_INVALID", `could not ${what}: ${(err as Error).message}`);
    }
  }

  /** Runs `fn` until it succeeds, with backoff; refusals and deregistration end the run. */
  async retrying<T>(phase: Phase, fn: () => Promise<T>): Promise<T> {
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
          if (phase === "register" && this.options.idleWhenRefused) {
            await this.awaitNewToken(failure);
            attempt = 0;
            continue;
          }
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
   * After a refusal that asking again cannot change: one line, then nothing until the token is
   * replaced (checked every REREGISTER_POLL_MS), so a pod neither exits into a crash loop nor
   * repeats the refused request.
   */
  private async awaitNewToken(failure: Failure): Promise<void> {
    const refused = this.lastToken ?? (await this.options.token?.read().catch(() => null));
    const where = this.options.token?.describe ?? "the token file";
    this.emit("warn", failure.code, `registration refused for good: waiting for a new token in ${where}`, {
      checkEvery: `${REREGISTER_POLL_MS / 1000}s`,
    });
    this.waiting = `registration refused (${failure.code}): waiting for a new token in ${where}`;
    for (;;) {
      await this.sleep(REREGISTER_POLL_MS);
      if (this.stopped) throw this.stoppedExit();
      const now = await this.readToken().catch(() => null);
      if (now && now !== refused) return;
    }
  }

  /**
   * Full-jitter backoff; after a Retry-After never earlier than it, jittered over at least as long
   * again: agents that were told "5 s" together must not all come back in the same second. The
   * wait happens on the same keep-alive connection (an overloaded server is not sent a new TLS
   * handshake on top).
   */
  retryDelay(failure: Failure, attempt: number): number {
    return failure.retryAfterMs === undefined
      ? backoffDelay(attempt, this.random, this.backoff)
      : retryAfterDelay(failure.retryAfterMs, attempt, this.random, this.backoff);
  }

  /**
   * A failed heartbeat's wait: as retryDelay, but without a Retry-After (a connection refused
   * while the server restarts, a timeout) full jitter within one heartbeat interval at most. A
   * fleet cut off together then returns at about its steady heartbeat rate within an interval of
   * the server's return, instead of minutes later for the agents whose backoff had grown, which a
   * status threshold of a few intervals would show as NotReady.
   */
  heartbeatRetryDelay(failure: Failure, attempt: number): number {
    if (failure.retryAfterMs !== undefined) return this.retryDelay(failure, attempt);
    return backoffDelay(attempt, this.random, cappedAt(this.backoff, this.intervalSeconds() * 1000));
  }

  report(failure: Failure, phase: Phase, retryInMs?: number) {
    this.options.hooks?.onFailure?.(failure, phase);
    this.emit(failure.level, failure.code, failure.message, {
      phase,
      status: failure.status,
      retryIn: retryInMs === undefined ? undefined : `${(retryInMs / 1000).toFixed(1)}s`,
    });
  }

  // ---- endings --------------------------------------------------------------------------

  tombstone(reason: Tombstone["reason"]): Tombstone {
    return { clusterId: this.clusterId, name: this.options.name, reason, at: new Date(this.clock.now()).toISOString() };
  }

  /**
   * The state is gone: in a cluster, scale the agent's own Deployment to 0 (else Kubernetes
   * restarts it), drop its privileges and say what is left for the admin to remove.
   */
  async forget(reason: Tombstone["reason"]): Promise<void> {
    await this.options.store.destroy(this.tombstone(reason));
    this.emit("info", "STATE_DELETED", "deleted local state", { state: this.options.store.location });
    await this.backend.leave?.();
  }

  async deregistered(failure: Failure, phase: Phase): Promise<AgentExit> {
    this.report(failure, phase);
    await this.forget("deregistered");
    return new AgentExit({
      outcome: "deregistered",
      exitCode: EXIT_CODES.ok,
      code: "CLUSTER_DEREGISTERED",
      message: failure.message,
    });
  }

  stoppedExit(): AgentExit {
    return new AgentExit({ outcome: "stopped", exitCode: EXIT_CODES.ok, code: "AGENT_STOPPED", message: "stopped" });
  }

  /** Closes what the run opened: the facts loop and the TLS agents (a shared anonymous one is the embedder's). */
  close() {
    this.facts.close();
    this.mtls?.destroy();
    if (this.anon !== this.options.anonymousAgent) this.anon?.destroy();
  }

  sleep(ms: number): Promise<void> {
    return ms > 0 || this.stopped ? this.clock.sleep(ms, this.abort.signal) : Promise.resolve();
  }

  emit(level: LogLevel, code: LogCode, message: string, fields?: LogFields) {
    this.logger.log({ level, code, message, fields: { cluster: this.options.name, ...fields } });
  }
}

/** How a used token is recognised without keeping it. */
export function tokenSha256(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}
