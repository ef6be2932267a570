import { performance } from "node:perf_hooks";
import type { AgentContext } from "./agent-context";
import { AgentExit, EXIT_CODES, REREGISTER_POLL_MS, type AgentResult } from "./agent-options";
import { jitteredInterval } from "./backoff";
import type { AckEntry } from "./cluster-backend";
import { AGENT_DIRECTIVES, directiveExecutor, isDirectiveType, type AgentDirectiveType } from "../domain/agent-protocol";
import { AckTracker, type Directive } from "./directives";
import { describeFailure } from "./errors";
import { requestJson } from "./http";
import { parseHeartbeatAnswer, type HeartbeatAnswer } from "./protocol";
import type { Registration } from "./registration";
import type { CertificateRotation } from "./rotation";
import { adoptBundle } from "./trust";

// The registered agent's loop: a heartbeat over mutual TLS each interval carrying the cluster's
// facts and the acks, then the answer: status, interval, CA bundle, directives, policy. The
// agent's own directives (disconnect, rotate) are carried out here; the cluster's go to its backend.

export class HeartbeatLoop {
  private readonly acks: AckTracker;
  private lastStatus: string | null = null;
  private disconnectId: string | null = null;
  private heartbeatSeq = 0;
  private lastHeartbeatOkAt = -Infinity;
  private pausedUntil = 0;

  constructor(
    private readonly ctx: AgentContext,
    private readonly registration: Registration,
    private readonly rotation: CertificateRotation,
  ) {
    this.acks = new AckTracker(ctx.options.ackDelayMs ?? 0);
  }

  /** The status from the last heartbeat answer (Ready, NotReady, Draining, ...). */
  get status(): string | null {
    return this.lastStatus;
  }
  get heartbeats(): number {
    return this.heartbeatSeq;
  }
  get lastOkAt(): number {
    return this.lastHeartbeatOkAt;
  }

  /** Stops heartbeating for `ms`, then resumes (the simulator's "flap" fault). */
  pause(ms: number) {
    this.pausedUntil = Math.max(this.pausedUntil, this.ctx.clock.now() + ms);
  }

  /** Heartbeats until the run ends: returns after a disconnect, throws AgentExit otherwise. */
  async run(): Promise<AgentResult> {
    let failures = 0;
    let delay = this.ctx.options.firstHeartbeatDelayMs ?? 0;
    for (;;) {
      await this.ctx.sleep(delay);
      while (!this.ctx.stopped && this.ctx.clock.now() < this.pausedUntil)
        await this.ctx.sleep(this.pausedUntil - this.ctx.clock.now());
      if (this.ctx.stopped) throw this.ctx.stoppedExit();
      await this.rotation.maybeRotate();
      try {
        const { answer, sentAcks } = await this.heartbeat();
        failures = 0;
        await this.ctx.backend.afterHeartbeat?.(true);
        if (this.disconnectId && sentAcks.includes(this.disconnectId)) return await this.disconnected();
        await this.handleAnswer(answer);
        delay = jitteredInterval(this.ctx.intervalSeconds(), this.ctx.random);
        if (this.disconnectId) {
          // Send the final heartbeat (carrying the ack) now, or as soon as a late ack is due.
          const due = this.acks.isAckDue(this.disconnectId, this.ctx.clock.now())
            ? 0
            : (this.acks.nextDueAt(this.ctx.clock.now()) ?? 0) - this.ctx.clock.now();
          delay = Math.max(0, Math.min(delay, due));
        }
      } catch (err) {
        if (err instanceof AgentExit) throw err;
        const failure = describeFailure(err, "heartbeat", this.ctx.server);
        if (this.ctx.stopped || failure.action === "stopped") throw this.ctx.stoppedExit();
        if (failure.action === "deregistered") throw await this.ctx.deregistered(failure, "heartbeat");
        if (failure.action === "stepDown") {
          this.ctx.report(failure, "heartbeat");
          throw new AgentExit({ outcome: "failed", exitCode: EXIT_CODES.failed, code: failure.code, message: failure.message });
        }
        await this.ctx.backend.afterHeartbeat?.(false);
        if (failure.action === "reregister") {
          // A revoked certificate's key is not proved again; an expired one's is (kept key).
          if (failure.code === "CERTIFICATE_REVOKED") this.registration.forgetKey();
          if (await this.ctx.tokenAvailable()) {
            this.ctx.report(failure, "heartbeat");
            await this.ctx.retrying("register", () => this.registration.register(true));
            delay = 0;
            failures = 0;
            continue;
          }
          delay = Math.max(REREGISTER_POLL_MS, this.ctx.retryDelay(failure, failures++));
          this.registration.awaitToken(failure, delay);
          continue;
        }
        delay = this.ctx.heartbeatRetryDelay(failure, failures++);
        this.ctx.report(failure, "heartbeat", delay);
      }
    }
  }

  private heartbeatBody(acks: AckEntry[]) {
    const revision = this.ctx.state?.cluster.appliedPolicyRevision ?? null;
    const facts = this.ctx.currentFacts();
    // Who holds the cluster's Lease, as this agent last held it: the server refuses a stale holder.
    const lease = this.ctx.options.lease?.report();
    return {
      ...facts,
      // The agent's own and what the cluster allows (node actions may be off).
      capabilities: [...new Set([...this.ctx.backend.capabilities, ...AGENT_DIRECTIVES])],
      ...(revision !== null ? { policy: { appliedRevision: revision } } : {}),
      acks,
      ...(lease ? { lease } : {}),
    };
  }

  private async heartbeat(): Promise<{ answer: HeartbeatAnswer; sentAcks: string[] }> {
    const state = this.ctx.state;
    if (!state || !this.ctx.mtls) throw new Error("heartbeat before registration");
    // No heartbeat waits for the cluster's facts: the first one after a start goes with none
    // ("not yet read": the control plane keeps the last it has), later ones with the parts read.
    this.ctx.facts.start();
    const ids = this.acks.acks(this.ctx.clock.now());
    const acks = this.ctx.backend.ackEntries(ids);
    const sent = acks.map((a) => (typeof a === "string" ? a : a.id));
    const started = performance.now();
    const raw = await requestJson(
      this.ctx.server,
      state.cluster.heartbeatPath,
      {
        method: "POST",
        agent: this.ctx.mtls,
        body: this.heartbeatBody(acks),
        timeoutMs: this.ctx.timeoutMs,
        signal: this.ctx.abort.signal,
      },
      this.ctx.clock.now(),
    );
    const latencyMs = performance.now() - started;
    const answer = parseHeartbeatAnswer(raw);
    this.heartbeatSeq += 1;
    this.lastHeartbeatOkAt = this.ctx.clock.now();
    this.ctx.emit("debug", "HEARTBEAT_OK", "heartbeat accepted", {
      seq: this.heartbeatSeq,
      status: answer.status,
      latencyMs: Math.round(latencyMs),
      acks: acks.length || undefined,
    });
    this.ctx.options.hooks?.onHeartbeat?.({ seq: this.heartbeatSeq, latencyMs, status: answer.status, acks: acks.length });
    return { answer, sentAcks: sent };
  }

  private async handleAnswer(answer: HeartbeatAnswer): Promise<void> {
    const state = this.ctx.state;
    if (!state) return;
    const cluster = { ...state.cluster };
    let dirty = false;

    if (answer.status && answer.status !== this.lastStatus) {
      this.ctx.emit("info", "STATUS_CHANGED", `control plane reports ${answer.status}`, {
        from: this.lastStatus ?? "none",
        to: answer.status,
      });
      this.lastStatus = answer.status;
    }
    if (answer.heartbeatIntervalSeconds && answer.heartbeatIntervalSeconds !== cluster.heartbeatIntervalSeconds) {
      // With an override in effect the server's value changes nothing now: debug only.
      const level = this.ctx.options.heartbeatIntervalSeconds ? "debug" : "info";
      this.ctx.emit(level, "INTERVAL_CHANGED", `the server's heartbeat interval is now ${answer.heartbeatIntervalSeconds}s`, {
        from: cluster.heartbeatIntervalSeconds,
        override: this.ctx.options.heartbeatIntervalSeconds,
      });
      const before = this.ctx.intervalSeconds();
      cluster.heartbeatIntervalSeconds = answer.heartbeatIntervalSeconds;
      this.ctx.followInterval(before);
      dirty = true;
    }

    // Trust first: a `rotate` directive in the same answer yields a certificate from the new CA.
    if (answer.caBundle) await adoptBundle(this.ctx, answer.caBundle);

    // Directives seen in earlier answers progress first; new ones start from this answer.
    await this.ctx.facts.afterAnswer();
    for (const directive of this.acks.observe(answer.directives, this.ctx.clock.now())) this.applyDirective(directive);

    this.ctx.currentFacts();
    const { agentVersion, kubernetesVersion } = this.ctx.versions;
    if (agentVersion !== cluster.agentVersion || kubernetesVersion !== cluster.kubernetesVersion) {
      cluster.agentVersion = agentVersion;
      cluster.kubernetesVersion = kubernetesVersion;
      dirty = true;
    }
    if (answer.desiredPolicyRevision !== null && answer.desiredPolicyRevision !== cluster.appliedPolicyRevision) {
      // "Applying" is instant here; the next heartbeat reports the revision as applied.
      this.ctx.emit("info", "POLICY_APPLIED", `applied policy revision ${answer.desiredPolicyRevision}`, {
        from: cluster.appliedPolicyRevision ?? "none",
        to: answer.desiredPolicyRevision,
      });
      cluster.appliedPolicyRevision = answer.desiredPolicyRevision;
      dirty = true;
    }
    if (dirty) {
      this.ctx.state = { ...state, cluster };
      await this.ctx.options.store.saveCluster(cluster);
    }
  }

  /** The agent's own directives here; the cluster's go to its backend. */
  private applyDirective(d: Directive) {
    this.ctx.options.hooks?.onDirective?.(d);
    this.ctx.emit("debug", "DIRECTIVE_RECEIVED", `directive ${d.type}`, { id: d.id, type: d.type });
    if (isDirectiveType(d.type) && directiveExecutor(d.type) === "agent") {
      this.agentDirectives[d.type as AgentDirectiveType](d);
      return;
    }
    // The cluster's, and types this agent does not know: the backend says how it answers those.
    this.ctx.backend.start(d);
    this.ctx.facts.wake();
  }

  /** The directives the agent carries out itself (typed by the protocol's table: each one is here). */
  private readonly agentDirectives: { [T in AgentDirectiveType]: (d: Directive) => void } = {
    disconnect: (d) => {
      this.disconnectId = d.id;
      this.ctx.emit(
        "info",
        "DISCONNECT",
        "disconnect requested: acknowledging, sending a final heartbeat, then deleting local state",
        { id: d.id },
      );
    },
    rotate: (d) => {
      this.rotation.request();
      this.ctx.emit("info", "ROTATE_REQUESTED", "the control plane asked for a new certificate (fleet CA rollover)", {
        id: d.id,
      });
    },
  };

  private async disconnected(): Promise<AgentResult> {
    await this.ctx.forget("disconnected");
    const result: AgentResult = {
      outcome: "disconnected",
      exitCode: EXIT_CODES.ok,
      code: "DISCONNECTED",
      message: "disconnected by the control plane: final heartbeat sent, local state deleted",
    };
    this.ctx.emit("info", "DISCONNECTED", result.message, { clusterId: this.ctx.clusterId });
    return result;
  }
}
