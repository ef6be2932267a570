import type https from "node:https";
import type { BackoffPolicy } from "./backoff";
import type { Clock } from "./clock";
import type { BackendSource } from "./cluster-backend";
import type { KeyPair } from "./csr";
import type { Directive } from "./directives";
import type { Failure, Phase } from "./errors";
import type { AgentLogger, LogCode } from "./log";
import type { StateStore } from "./state";
import type { TrustSpec } from "./trust";
import type { HeartbeatLease } from "../domain/agent-protocol";

// What an embedder hands the agent (the CLI, the simulator, tests) and what a run ends with.

export const EXIT_CODES = { ok: 0, failed: 1, config: 2, rejected: 3 } as const;

/** How often an agent that needs a re-enrolment token looks for one. */
export const REREGISTER_POLL_MS = 60_000;

export type AgentOutcome = "stopped" | "disconnected" | "deregistered" | "rejected" | "config" | "failed";

/** Ends run() with a result; thrown from deep inside the loop. */
export class AgentExit extends Error {
  constructor(readonly result: AgentResult) {
    super(result.message);
  }
}

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
  /** The Kubernetes version recorded at registration until the cluster has reported its own. */
  kubernetesVersion?: string;
  store: StateStore;
  /** How to trust the server: a CA PEM, a fingerprint pin, or only what the state dir holds. */
  trust: TrustSpec;
  token?: TokenSource;
  /** The cluster's own CA fingerprint (`sha256:<hex>`), resolved only when registering. */
  clusterCaFingerprint: string | (() => Promise<string>);
  /**
   * The cluster behind the agent: its facts and the directives it carries out. A real one through
   * its API (kube/kube-cluster.ts) or a simulated one (simulator/simulated-backend.ts), chosen by
   * the program that runs the agent, so the agent's core depends on neither.
   */
  cluster: BackendSource;
  /**
   * A registration refused for good (a revoked token, a denied request) waits for a new token
   * instead of ending the run: in a Deployment an exit restarts the pod, which would only repeat
   * the refusal in a crash loop. The CLI sets it when the state lives in a Secret.
   */
  idleWhenRefused?: boolean;
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
  /**
   * A new connection (TLS resumed from the last one's session) for each request instead of one
   * kept open between heartbeats: the server then holds no idle connection per agent, for a
   * resumed handshake a heartbeat. The simulator's --close-connections (100,000 agents at 60 s).
   */
  closeConnections?: boolean;
  /** An https.Agent without client certificate trusting the same CA, shared by many agents. */
  anonymousAgent?: https.Agent;
  /** The cluster's Lease this agent holds (state in a Secret): its heartbeats report it. */
  lease?: { report(): HeartbeatLease | null };
  /** Delay before the first heartbeat (the simulator spreads its fleet over the interval). */
  firstHeartbeatDelayMs?: number;
  hooks?: AgentHooks;
}
