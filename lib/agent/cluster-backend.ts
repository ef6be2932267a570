import type { Directive } from "./directives";
import type { FactsReport } from "./facts";
import type { ClusterRecord } from "./state";

// What the agent needs of the cluster behind it, whether a real one (kube/kube-cluster.ts) or a
// simulated one (simulator/simulated-backend.ts): its facts and the directives it carries out. The
// agent itself carries out only the directives about its own standing (disconnect, rotate).

/** What a heartbeat may carry in `acks` (docs/protocol.md): a done id, or a failure with its reason. */
export type AckEntry = string | { id: string; ok: false; reason: string };

export interface ClusterBackend {
  /**
   * How the facts move on. `own`: read on their own schedule (facts-loop.ts), never in a
   * heartbeat's way, as a real cluster's must be. `heartbeat`: one step (progress) per heartbeat
   * answer, before the answer's new directives start: a simulated cluster, whose upgrades and
   * drains tests count in heartbeats.
   */
  readonly pace: "own" | "heartbeat";
  /** The directive types this cluster can carry out (the agent adds its own). */
  readonly capabilities: string[];
  /** Reads the cluster's facts; `signal` abandons the read. Never throws: a failure keeps the last facts. */
  collect(signal?: AbortSignal): Promise<FactsReport>;
  /** When the facts were last read in full (-Infinity: never). */
  readonly factsReadAt: number;
  /** The latest facts, as a heartbeat reports them. */
  report(): FactsReport;
  /** Starts a directive (called once per id); progress() carries it on. */
  start(d: Directive): void;
  /** Advances every running directive one step. */
  progress(): Promise<void>;
  /** The acks to send for these ids: running ones are held back, failed ones carry their reason. */
  ackEntries(ids: string[]): AckEntry[];
  /** After the agent's state is gone (disconnect, deregistration): what leaving takes in the cluster. */
  leave?(): Promise<void>;
  /** The versions recorded with the registration, when the backend's own facts do not survive a restart. */
  restore?(record: Pick<ClusterRecord, "agentVersion" | "kubernetesVersion">): void;
}
