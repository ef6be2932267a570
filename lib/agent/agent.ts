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
      const loaded = await this.loadState();
      this.ctx.caPem = await this.ctx.retrying("trust", () => establishTrust(this.ctx, loaded));
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
    try {
      const state = await this.ctx.options.store.load();
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
      if (!(err instanceof StateError)) throw err;
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
    while (!this.ctx.stopped) await this.ctx.sleep(REREGISTER_POLL_MS);
    return this.ctx.stoppedExit();
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
