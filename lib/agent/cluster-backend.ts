import type { AckCode, ClusterDirectiveType } from "../domain/agent-protocol";
import type { Directive } from "./directives";
import type { FactsReport } from "./facts";
import type { LogCode, LogFields, LogLevel } from "./log";
import type { ClusterRecord } from "./state";

// What the agent needs of the cluster behind it, whether a real one (kube/kube-cluster.ts) or a
// simulated one (simulator/simulated-backend.ts): its facts and the directives it carries out. The
// agent itself carries out only the directives about its own standing (disconnect, rotate). Which
// are which is the protocol's table, DIRECTIVES in lib/domain/agent-protocol.ts. The agent's core
// is given its backend by the program that runs it (cli.ts, the simulator, tests).

/** A backend's log line; the agent's own log adds the cluster's name. */
export type BackendLog = (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;

/** What a heartbeat may carry in `acks` (docs/protocol.md): a done id, or a failure with its reason (and code). */
export type AckEntry = string | { id: string; ok: false; reason: string; code?: AckCode };

export interface ClusterBackend {
  /**
   * How the facts move on. `own`: read on their own schedule (facts-loop.ts), never in a
   * heartbeat's way, as a real cluster's must be. `heartbeat`: one step (progress) per heartbeat
   * answer, before the answer's new directives start: a simulated cluster, whose upgrades and
   * drains tests count in heartbeats.
   */
  readonly pace: "own" | "heartbeat";
  /** The directive types this cluster can carry out (the agent adds its own). */
  readonly capabilities: readonly ClusterDirectiveType[];
  /** Reads the cluster's facts; `signal` abandons the read. Never throws: a failure keeps the last facts. */
  collect(signal?: AbortSignal): Promise<FactsReport>;
  /** When the API server's health was last read (-Infinity: never): older than a round, "ok" is reported degraded. */
  readonly factsReadAt: number;
  /** The latest facts, as a heartbeat reports them. */
  report(): FactsReport;
  /** Starts a cluster directive, or one of a type it does not know (called once per id); progress() carries it on. */
  start(d: Directive): void;
  /** Advances every running directive one step. */
  progress(): Promise<void>;
  /** The acks to send for these ids: running ones are held back, failed ones carry their reason. */
  ackEntries(ids: string[]): AckEntry[];
  /** After each heartbeat, accepted or not (an upgrade of the agent is confirmed by the first accepted one). */
  afterHeartbeat?(accepted: boolean): Promise<void>;
  /** After the agent's state is gone (disconnect, deregistration): what leaving takes in the cluster. */
  leave?(): Promise<void>;
  /**
   * The cluster's own identity (the kube-system namespace's UID), read now; null when it cannot be
   * known (RBAC). Throws StateUnavailableError while the API cannot answer. Without this method the
   * agent takes the UID its facts report.
   */
  clusterIdentity?(): Promise<string | null>;
  /** The versions recorded with the registration, when the backend's own facts do not survive a restart. */
  restore?(record: Pick<ClusterRecord, "agentVersion" | "kubernetesVersion">): void;
}

/** The backend itself, or how to make it with the agent's log (which names the cluster on every line). */
export type BackendSource = ClusterBackend | ((log: BackendLog) => ClusterBackend);
