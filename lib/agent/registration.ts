import {
  buildCsr,
  certificateFingerprint,
  certificateMatchesKey,
  firstPemBlock,
  issuedBy,
  keyPairFromPrivateKey,
  pemCertificates,
  publicKeyFingerprint,
  type KeyPair,
} from "./csr";
import { tokenSha256, type AgentContext } from "./agent-context";
import { REREGISTER_POLL_MS } from "./agent-options";
import { backoffDelay } from "./backoff";
import { BadResponseError, ConfigError, ProtocolError, type Failure } from "./errors";
import { requestJsonAnswer } from "./http";
import { AGENT_API, parsePendingApproval, parseRegisterAnswer, type PendingApproval, type RegisterAnswer } from "./protocol";
import type { AgentState, ClusterRecord } from "./state";
import { adoptBundle } from "./trust";

// Registration with a token (docs/protocol.md, POST /register), the first time and again when the
// control plane no longer accepts this agent's certificate: one key per registration, kept across
// retries and restarts, so a retry after a lost answer proves the key the server may already have
// certified. A token that requires approval answers 202 until an operator decides: the agent asks
// again with the very same request (key, token, body) at the pace the server names.

/** The request an approval is pending for, repeated as it is until decided. */
interface PendingRequest {
  token: string;
  body: Record<string, unknown>;
  requestId: string | null;
}

export class Registration {
  /** The key every attempt of the registration in progress proves (kept across retries). */
  private pendingKey: KeyPair | null = null;
  /** False after a revocation: a revoked certificate's key is not reused. */
  private keepKey = true;
  private noticed = false;
  /** Set by a 202: the request to repeat (kept across network retries of this registration). */
  private pending: PendingRequest | null = null;

  constructor(private readonly ctx: AgentContext) {}

  /** The certificate was revoked: its key is not proved again (an expired one's is: kept key). */
  forgetKey() {
    this.keepKey = false;
  }

  private async clusterCaFingerprint(): Promise<string> {
    const source = this.ctx.options.clusterCaFingerprint;
    return typeof source === "string" ? source : source();
  }

  /**
   * The key a registration proves. A retry after a lost answer must present the key of the
   * certificate the server may already have issued (docs/protocol.md, Re-registration (a)), so the key
   * is chosen once per registration and written down before the first attempt: a restart in
   * between finds it again. Re-registering an agent that holds a certificate (expired past the
   * renewal grace, say) proves the same kept key, unless that certificate was revoked.
   */
  private async keys(): Promise<KeyPair> {
    if (this.pendingKey) return this.pendingKey;
    let keys: KeyPair | null = null;
    if (this.ctx.state && this.keepKey) keys = keyPairFromPrivateKey(this.ctx.state.keyPem);
    const store = this.ctx.options.store;
    if (!keys && !this.ctx.state) {
      const pending = await this.ctx.localStep("read the pending registration key", () => store.loadPendingKey());
      if (pending) keys = keyPairFromPrivateKey(pending);
    }
    if (!keys) {
      const fresh = await this.ctx.newKeys();
      await this.ctx.localStep(`keep the registration key in ${store.location}`, () => store.savePendingKey(fresh.privateKeyPem));
      keys = fresh;
    }
    this.pendingKey = keys;
    return keys;
  }

  /**
   * The token to register with: the one in the token source now (an operator may have replaced it
   * while a request waits for approval: the request goes on with the new one, same key, same
   * body), else the one the waiting request was sent with. With none at all, an agent in a
   * Deployment waits for one (an exit would crash-loop), any other stops with a configuration error.
   */
  private async token(): Promise<string> {
    for (let first = true; ; first = false) {
      const token = (await this.ctx.readToken()) ?? this.pending?.token;
      if (token) {
        if (this.pending && token !== this.pending.token) {
          this.ctx.emit(
            "info",
            "APPROVAL_PENDING",
            `the registration token in ${this.ctx.options.token?.describe ?? "the token source"} was replaced while request ${this.pending.requestId} waits for approval: asking again with it, with the same key and request`,
            { requestId: this.pending.requestId },
          );
        }
        return token;
      }
      const where = this.ctx.options.token?.describe;
      if (!this.ctx.options.idleWhenRefused) {
        throw new ConfigError(
          "TOKEN_FILE_MISSING",
          `no registration token${where ? ` in ${where}` : ""}: mint one in the console (Tokens) and write it to --token-file`,
        );
      }
      // A reason given before (the state belongs to another cluster) says more than "no token".
      const explained = this.ctx.waiting !== null;
      this.ctx.waiting ??= `no identity in ${this.ctx.options.store.location} and no registration token${where ? ` in ${where}` : ""}`;
      this.ctx.emit(
        first ? "warn" : "debug",
        "TOKEN_AWAITED",
        explained
          ? `no unused registration token${where ? ` in ${where}` : ""}: waiting for one`
          : `${this.ctx.options.store.location} holds no identity and no tombstone, and there is no unused registration token${where ? ` in ${where}` : ""}: nothing to register with. If a GitOps sync replaced the state Secret (Argo CD Replace=true, a re-created Secret), this cluster's identity is gone: exclude that Secret from the sync, then mint a token in the console and put it in ${where ?? "the token source"}. Waiting for one`,
        { checkEvery: `${REREGISTER_POLL_MS / 1000}s` },
      );
      await this.ctx.sleep(REREGISTER_POLL_MS);
      if (this.ctx.stopped) throw this.ctx.stoppedExit();
    }
  }

  async register(reregister: boolean): Promise<void> {
    let token = await this.token();
    const caFingerprint =
      this.ctx.state?.cluster.clusterCaFingerprint ||
      (await this.ctx.localStep("read the cluster CA", () => this.clusterCaFingerprint()));
    await this.ctx.facts.ready();
    const facts = this.ctx.currentFacts();
    const apiServerUrl =
      typeof this.ctx.options.apiServerUrl === "function"
        ? await this.ctx.options.apiServerUrl()
        : (this.ctx.options.apiServerUrl ?? "https://kubernetes.default.svc:443");
    // Key, CSR and request all run inside the registration slot: with thousands of simulated
    // agents the CPU work (signing the CSR) is bounded too, not only the requests.
    const attempt = async () => {
      const keys = await this.keys();
      const body = this.pending?.body ?? {
        name: this.ctx.options.name,
        apiServerUrl,
        caFingerprint,
        agentVersion: facts.agentVersion,
        kubernetesVersion: facts.kubernetesVersion,
        labels: this.ctx.options.labels ?? {},
        csr: buildCsr(keys, this.ctx.options.name),
        ...(facts.clusterUid ? { clusterUid: facts.clusterUid } : {}),
      };
      this.ctx.emit(
        this.pending ? "debug" : "info",
        reregister ? "REREGISTERING" : "REGISTERING",
        `registering cluster ${this.ctx.options.name}`,
        { server: this.ctx.server.origin, token: this.ctx.options.token?.describe, key: publicKeyFingerprint(keys.publicKeyPem) },
      );
      this.ctx.lastToken = token;
      const raw = await requestJsonAnswer(
        this.ctx.server,
        AGENT_API.register,
        {
          method: "POST",
          agent: this.ctx.anonymousAgent(),
          headers: { authorization: `Bearer ${token}` },
          body,
          timeoutMs: this.ctx.timeoutMs,
          signal: this.ctx.abort.signal,
        },
        this.ctx.clock.now(),
      );
      if (raw.status === 202) return { keys, body, pending: parsePendingApproval(raw.body, raw.retryAfterMs) };
      return { keys, body, answer: parseRegisterAnswer(raw.body) };
    };
    let result: { keys: KeyPair; body: Record<string, unknown>; answer?: RegisterAnswer; pending?: PendingApproval };
    for (;;) {
      try {
        result = await (this.ctx.options.registrationSlot ? this.ctx.options.registrationSlot(attempt) : attempt());
      } catch (err) {
        // Decided (denied, expired) or refused: a later registration is a new request.
        if (err instanceof ProtocolError && err.status >= 400 && err.status < 500 && err.status !== 429) this.pending = null;
        throw err;
      }
      if (!result.pending) break;
      await this.awaitApproval(token, result.body, result.pending, result.keys);
      token = await this.token();
    }
    const { keys } = result;
    const answer = result.answer!;
    this.pending = null;
    // Over TLS verified with the CA(s) we trust: during a CA rollover the answer names the
    // incoming CA too, which signed our certificate.
    if (answer.caCertificate && pemCertificates(answer.caCertificate).length > 1)
      await adoptBundle(this.ctx, answer.caCertificate);
    const caPem = this.ctx.requireCa();
    if (!certificateMatchesKey(answer.certificate, keys.privateKeyPem)) {
      throw new BadResponseError("the issued certificate does not carry the public key of our CSR");
    }
    if (!issuedBy(answer.certificate, caPem))
      throw new BadResponseError("the issued certificate is not signed by the trusted fleet CA");
    if (answer.caCertificate) {
      const served = firstPemBlock(answer.caCertificate);
      if (!served || certificateFingerprint(served) !== certificateFingerprint(caPem)) {
        this.ctx.emit(
          "warn",
          "CA_MISMATCH",
          "the registration answer names a different fleet CA than the one trusted: keeping the trusted one",
        );
      }
    }
    const previous = this.ctx.state?.cluster;
    const cluster: ClusterRecord = {
      clusterId: answer.clusterId,
      name: this.ctx.options.name,
      serverUrl: this.ctx.server.origin,
      registeredAt: new Date(this.ctx.clock.now()).toISOString(),
      heartbeatIntervalSeconds: answer.heartbeatIntervalSeconds,
      heartbeatPath: answer.heartbeatPath,
      clusterCaFingerprint: caFingerprint,
      agentVersion: this.ctx.versions.agentVersion,
      kubernetesVersion: this.ctx.versions.kubernetesVersion,
      appliedPolicyRevision: previous?.appliedPolicyRevision ?? null,
      // The identity belongs to this Kubernetes cluster (a copy of the state elsewhere is refused).
      ...(facts.clusterUid ? { clusterUid: facts.clusterUid } : {}),
      // A token deleted once used may come back (GitOps): recognised, not sent again.
      ...(this.ctx.options.token?.consumed ? { usedTokenSha256: tokenSha256(token) } : {}),
    };
    const state: AgentState = { keyPem: keys.privateKeyPem, certPem: answer.certificate, caPem, cluster };
    await this.saveRegistration(state);
    this.ctx.adopt(state);
    this.pendingKey = null;
    this.keepKey = true;
    this.noticed = false;
    this.ctx.emit("info", "REGISTERED", `registered as ${answer.clusterId}`, {
      clusterId: answer.clusterId,
      interval: `${answer.heartbeatIntervalSeconds}s`,
      serial: this.ctx.lifetime?.serial,
    });
    if (previous && previous.clusterId !== answer.clusterId) {
      this.ctx.emit("warn", "REGISTERED", "the server assigned a different cluster id on re-registration", {
        previous: previous.clusterId,
      });
    }
    if (this.ctx.options.token?.consumed) {
      try {
        await this.ctx.options.token.consumed();
        this.ctx.emit("info", "TOKEN_FILE_DELETED", `deleted the used token file ${this.ctx.options.token.describe}`);
      } catch (err) {
        this.ctx.emit(
          "warn",
          "TOKEN_FILE_NOT_DELETED",
          `could not delete the used token file ${this.ctx.options.token.describe} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): delete it yourself, and revoke the token if it has uses left`,
        );
      }
    }
    this.ctx.options.hooks?.onRegistered?.({ clusterId: answer.clusterId, reregistered: reregister });
  }

  /**
   * 202 pending_approval: one line the first time (which request, where to approve it), then
   * quiet repeats of the same request at the server's pace, until an operator decides (201, or
   * a 403/410 that ends the run). Each line names the key's fingerprint: several keys may wait for
   * one name, and the operator tells this agent's request from another's by it.
   */
  private async awaitApproval(
    token: string,
    body: Record<string, unknown>,
    pending: PendingApproval,
    keys: KeyPair,
  ): Promise<void> {
    const first = this.pending?.requestId !== pending.requestId;
    this.pending = { token, body, requestId: pending.requestId };
    this.ctx.waiting = `registration request ${pending.requestId} waits for an operator's approval`;
    // A little jitter after the wait: agents minted with one token must not come back together.
    const delay = Math.round(pending.retryAfterMs * (1 + 0.1 * this.ctx.random()));
    const where = pending.consoleUrl;
    const key = publicKeyFingerprint(keys.publicKeyPem);
    this.ctx.emit(
      first ? "info" : "debug",
      "APPROVAL_PENDING",
      `waiting for an operator to approve registration request ${pending.requestId} in the console${where ? ` (${where})` : ""}; this agent's key is ${key}`,
      { requestId: pending.requestId, key, retryIn: `${(delay / 1000).toFixed(1)}s` },
    );
    await this.ctx.sleep(delay);
    if (this.ctx.stopped) throw this.ctx.stoppedExit();
  }

  /**
   * The server has issued a certificate: exiting now would lose it (and a token use). A write that
   * fails (the state Secret's API busy, a full disk) is retried with backoff until it succeeds.
   */
  private async saveRegistration(state: AgentState): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.ctx.options.store.save(state);
        return;
      } catch (err) {
        if (this.ctx.stopped) throw this.ctx.stoppedExit();
        const delay = backoffDelay(attempt, this.ctx.random, this.ctx.backoff);
        this.ctx.emit(
          "warn",
          "STATE_SAVE_FAILED",
          `registered, but could not write ${this.ctx.options.store.location}: ${(err as Error).message}; retrying (the new certificate is kept in memory meanwhile)`,
          { retryIn: `${(delay / 1000).toFixed(1)}s` },
        );
        await this.ctx.sleep(delay);
      }
    }
  }

  /**
   * One clear line the first time (what happened, what the admin must do), then quiet retries at
   * a slow pace until a token appears: a fleet of stranded agents must not hammer the server.
   */
  awaitToken(failure: Failure, delayMs: number) {
    this.ctx.options.hooks?.onFailure?.(failure, "heartbeat");
    const first = !this.noticed;
    this.noticed = true;
    const where = this.ctx.options.token?.describe ?? "the token file";
    this.ctx.waiting = `the control plane no longer accepts this agent's certificate (${failure.code}): waiting for a re-enrolment token in ${where}`;
    this.ctx.emit(
      first ? "error" : "debug",
      "REREGISTRATION_NEEDED",
      `the control plane no longer accepts this agent's certificate (${failure.code}): an admin must mint a re-enrolment token (cluster page, "Re-enrol") and put it in ${where}; the agent ${this.keepKey ? "keeps its key and " : ""}checks for it every ${Math.round(delayMs / 1000)}s`,
      { cause: failure.code, status: failure.status, clusterId: this.ctx.clusterId },
    );
  }
}
