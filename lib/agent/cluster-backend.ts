import type { Directive } from "./directives";
import type { FactsReport } from "./facts";

// What the agent needs of the cluster behind it, whether a real one (kube/kube-cluster.ts) or a
// simulated one: its facts, read on their own schedule, and the directives it carries out.

/** What a heartbeat may carry in `acks` (PROTOCOL.md): a done id, or a failure with its reason. */
export type AckEntry = string | { id: string; ok: false; reason: string };

export interface ClusterBackend {
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
}
