import { AgentContext } from "./agent-context";
import { errorText } from "../domain/error-text";
import { AgentExit, EXIT_CODES, REREGISTER_POLL_MS, type AgentResult, type FleetAgentOptions } from "./agent-options";
import { keyPairFromPrivateKey, publicKeyFingerprint } from "./csr";
import { ConfigError } from "./errors";
import { HeartbeatLoop } from "./run-loop";
import { Registration } from "./registration";
import { CertificateRotation } from "./rotation";
import { StateError, TombstoneError, type AgentState } from "./state";
import { establishTrust } from "./trust";

// The reference agent: registers with a one-time token, then heartbeats over mutual TLS,
// acts on directives, rotates its certificate, and stops cleanly when told to. Everything it
// knows about the server is docs/protocol.md; it shares no code with the server. The parts: trust
// (trust.ts), registration (registration.ts), rotation (rotation.ts), the heartbeat loop
// (run-loop.ts); the cluster behind it is a ClusterBackend (cluster-backend.ts).

export {
  EXIT_CODES,
  REREGISTER_POLL_MS,
  type AgentHooks,
  type AgentOutcome,
  type AgentResult,
  type FleetAgentOptions,
  type HeartbeatInfo,
  type TokenSource,
} from "./agent-options";

export class FleetAgent {
  private readonly ctx: AgentContext;
  private readonly registration: Registration;
  private readonly rotation: CertificateRotation;
  private readonly loop: HeartbeatLoop;

  constructor(options: FleetAgentOptions) {
    this.ctx = new AgentContext(options);
    this.registration = new Registration(this.ctx);
    this.rotation = new CertificateRotation(this.ctx);
    this.loop = new HeartbeatLoop(this.ctx, this.registration, this.rotation);
  }

  get clusterId(): string | null {
    return this.ctx.clusterId;
  }
  /** The status from the last heartbeat answer (Ready, NotReady, Draining, ...). */
  get status(): string | null {
    return this.loop.status;
  }
  get heartbeats(): number {
    return this.loop.heartbeats;
  }
  /**
   * Registered and a heartbeat accepted within three intervals (at least a minute): what the
   * pod's readiness probe reports. Liveness asks nothing of the control plane.
   */
  get ready(): boolean {
    const window = Math.max(60_000, 3 * this.ctx.intervalSeconds() * 1000);
    return !!this.clusterId && this.ctx.clock.now() - this.loop.lastOkAt <= window;
  }
  /** Why the agent is not Ready (null when it is): what /readyz answers with its 503. */
  get notReadyReason(): string | null {
    if (this.ready) return null;
    if (this.ctx.waiting) return this.ctx.waiting;
    return this.clusterId ? "no heartbeat accepted recently" : "not registered yet";
  }
  get appliedPolicyRevision(): string | null {
    return this.ctx.state?.cluster.appliedPolicyRevision ?? null;
  }
  get certificateSerial(): string | null {
    return this.ctx.lifetime?.serial ?? null;
  }

  /** Stops the run: aborts waits and requests in flight; run() resolves with outcome "stopped". */
  stop() {
    if (this.ctx.stopped) return;
    this.ctx.stopped = true;
    this.ctx.abort.abort();
    this.ctx.facts.close();
  }

  /** Stops heartbeating for `ms`, then resumes (the simulator's "flap" fault). */
  pause(ms: number) {
    this.loop.pause(ms);
  }

  async run(): Promise<AgentResult> {
    this.ctx.emit("info", "AGENT_START", `fleet agent starting for cluster ${this.ctx.options.name}`, {
      server: this.ctx.server.origin,
      state: this.ctx.options.store.location,
    });
    let result: AgentResult;
    try {
      const stored = await this.loadState();
      this.ctx.caPem = await this.ctx.retrying("trust", () => establishTrust(this.ctx, stored));
      const loaded = stored && (await this.bindToCluster(stored));
      if (loaded) this.ctx.adopt(loaded);
      else await this.ctx.retrying("register", () => this.registration.register(false));
      result = await this.loop.run();
    } catch (err) {
      result = this.resultOf(err);
    } finally {
      this.ctx.close();
    }
    return result;
  }

  private async loadState(): Promise<AgentState | null> {
    const store = this.ctx.options.store;
    try {
      const state = await this.ctx.storeStep(`read ${store.location}`, () => store.load());
      if (this.ctx.options.store.recovered) {
        this.ctx.emit("warn", "STATE_RECOVERED", "finished a certificate rotation that was interrupted", {
          state: this.ctx.options.store.location,
        });
      }
      if (state) {
        this.ctx.emit("info", "STATE_LOADED", "found existing registration: skipping registration", {
          clusterId: state.cluster.clusterId,
          state: this.ctx.options.store.location,
          key: keyFingerprintOf(state.keyPem),
        });
      }
      return state;
    } catch (err) {
      if (err instanceof TombstoneError) throw await this.idleAfterLeaving(err);
      if (err instanceof AgentExit) throw err;
      // Refused (RBAC, a missing namespace, an unreadable directory): waiting will not change it.
      if (!(err instanceof StateError))
        throw new ConfigError("CONFIG_INVALID", `could not read ${store.location}: ${errorText(err)}`);
      if (await this.ctx.tokenAvailable()) {
        this.ctx.emit("warn", "STATE_INVALID", `local state is unusable (${err.message}): registering again with the token`, {
          state: this.ctx.options.store.location,
        });
        return null;
      }
      throw new ConfigError(
        "STATE_INVALID",
        `local state is unusable (${err.message}): delete ${this.ctx.options.store.location} and register again with a new token (--token-file)`,
      );
    }
  }

  /**
   * The cluster left the fleet and something (GitOps re-applying the manifest) started the agent
   * again: one line saying so and how to clean up, then nothing until stopped. Exiting would
   * crash-loop; registering with the used token would be refused.
   */
  private async idleAfterLeaving(err: TombstoneError): Promise<AgentExit> {
    this.ctx.emit("warn", "STATE_TOMBSTONE", err.message, { state: this.ctx.options.store.location });
    this.ctx.waiting = `this cluster was ${err.tombstone.reason} from the fleet: idle until removed`;
    while (!this.ctx.stopped) await this.ctx.sleep(REREGISTER_POLL_MS);
    return this.ctx.stoppedExit();
  }

  /**
   * The state belongs to the Kubernetes cluster whose kube-system namespace UID it records. A state
   * restored or copied into another cluster (a Velero restore into a DR cluster, a cloned cluster)
   * is not acted on: two clusters must never share an id, so the agent neither heartbeats nor
   * re-registers as it; it registers this cluster anew (new key) once a token is there. A state
   * written before the UID was kept is bound to the cluster it is read in. Null: register anew.
   */
  private async bindToCluster(state: AgentState): Promise<AgentState | null> {
    const backend = this.ctx.backend;
    const store = this.ctx.options.store;
    const uid = backend.clusterIdentity
      ? await this.ctx.storeStep("read the cluster's identity (the kube-system namespace)", () => backend.clusterIdentity!())
      : (backend.report().clusterUid ?? null);
    // Unknown (RBAC of an older manifest): nothing to compare, as before the UID was kept.
    if (!uid) return state;
    const { cluster } = state;
    if (!cluster.clusterUid) {
      const bound = { ...cluster, clusterUid: uid };
      await this.ctx.localStep(`record the cluster's identity in ${store.location}`, () => store.saveCluster(bound));
      return { ...state, cluster: bound };
    }
    if (cluster.clusterUid === uid) return state;
    const where = this.ctx.options.token?.describe ?? "--token-file";
    this.ctx.emit(
      "error",
      "STATE_OTHER_CLUSTER",
      `${store.location} holds the identity of cluster ${cluster.clusterId} (${cluster.name}), registered from the Kubernetes cluster whose kube-system namespace has UID ${cluster.clusterUid}, but this cluster's is ${uid}: the state was restored or copied from another cluster (a backup restored into a DR cluster, a cloned cluster). Two clusters must never share an id, so this agent does not act as ${cluster.clusterId}: it registers this cluster anew, with a new key, once a registration token is in ${where} (mint one in the console), and the copied identity is then replaced`,
      { clusterId: cluster.clusterId, storedUid: cluster.clusterUid, clusterUid: uid },
    );
    this.ctx.waiting = `the state belongs to another cluster (kube-system UID ${cluster.clusterUid}): waiting to register this one anew`;
    return null;
  }

  private resultOf(err: unknown): AgentResult {
    if (err instanceof AgentExit) {
      if (err.result.outcome === "stopped") this.ctx.emit("info", "AGENT_STOPPED", "stopped");
      return err.result;
    }
    if (err instanceof ConfigError) {
      this.ctx.emit("error", err.code, err.message);
      return { outcome: "config", exitCode: EXIT_CODES.config, code: err.code, message: err.message };
    }
    const message = `unexpected failure: ${errorText(err)}`;
    this.ctx.emit("error", "AGENT_FAILED", message);
    return { outcome: "failed", exitCode: EXIT_CODES.failed, code: "AGENT_FAILED", message };
  }
}

/** The kept key's fingerprint for the start line; a key that does not parse is reported later, where it is used. */
function keyFingerprintOf(privateKeyPem: string): string | undefined {
  try {
    return publicKeyFingerprint(keyPairFromPrivateKey(privateKeyPem).publicKeyPem);
  } catch {
    return undefined;
  }
}
