import { errorText } from "../domain/error-text";
import { createTlsAgent, httpRequest } from "./http";
import type { LogCode, LogFields, LogLevel } from "./log";
import { AGENT_API } from "./protocol";
import type { StateStore } from "./state";

// What a standby (an upgrade's new pod, waiting for the Lease) proves before it reports Ready. Its
// readiness is what makes Kubernetes stop the old pod, the only one that can still roll the
// upgrade back: so the new version must show it can run, not only that it started. It loads and
// parses the state, and makes a mutual-TLS request to the fleet with the stored certificate: a
// heartbeat with an empty body, which the agent port authenticates before it reads the body
// (docs/protocol.md), so 400 invalid_request proves the certificate without reporting anything.

export type PreflightResult = { ok: true } | { ok: false; reason: string };

export interface PreflightOptions {
  store: StateStore;
  server: URL;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function preflight(o: PreflightOptions): Promise<PreflightResult> {
  let state;
  try {
    state = await o.store.load();
  } catch (err) {
    return { ok: false, reason: `the state in ${o.store.location} does not load: ${errorText(err)}` };
  }
  if (!state) return { ok: false, reason: `${o.store.location} holds no registration yet` };
  const agent = createTlsAgent(state.caPem, { keyPem: state.keyPem, certPem: state.certPem }, { keepAlive: false });
  try {
    const res = await httpRequest(o.server, state.cluster.heartbeatPath || AGENT_API.heartbeat, {
      method: "POST",
      agent,
      body: {},
      timeoutMs: o.timeoutMs,
      signal: o.signal,
    });
    if (res.status === 400 || (res.status >= 200 && res.status < 300)) return { ok: true };
    let code = `HTTP ${res.status}`;
    try {
      code = String((JSON.parse(res.text) as { error?: unknown }).error ?? code);
    } catch {
      // not JSON: the status says enough
    }
    return { ok: false, reason: `the fleet refused the stored certificate (${code})` };
  } catch (err) {
    return { ok: false, reason: `the fleet could not be reached over mutual TLS: ${errorText(err)}` };
  } finally {
    agent.destroy();
  }
}

/** Runs the preflight until it passes (then it stays passed: the Lease is what the standby waits for). */
export class PreflightGate {
  passed = false;
  private lastReason: string | null = null;

  constructor(
    private readonly o: Omit<PreflightOptions, "signal"> & {
      everyMs: number;
      /** Whether to check now (only a standby needs to: the holder proves itself by heartbeating). */
      when: () => boolean;
      sleep: (ms: number, signal: AbortSignal) => Promise<void>;
      log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
    },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !this.passed) {
      if (!this.o.when()) {
        await this.o.sleep(this.o.everyMs, signal);
        continue;
      }
      const result = await preflight({ ...this.o, signal });
      if (result.ok) {
        this.passed = true;
        this.o.log("info", "PREFLIGHT_OK", "state loaded and the fleet accepts the stored certificate: ready as a standby");
        return;
      }
      // Said once per reason, not every round.
      if (result.reason !== this.lastReason)
        this.o.log("warn", "PREFLIGHT_FAILED", `not ready as a standby: ${result.reason}`, { retryInMs: this.o.everyMs });
      this.lastReason = result.reason;
      await this.o.sleep(this.o.everyMs, signal);
    }
  }
}
