import type { AckEntry, ClusterBackend } from "../cluster-backend";
import type { ClusterRecord } from "../state";
import { directiveParam, type Directive } from "../directives";
import type { FactsReport } from "../facts";
import type { LogCode, LogFields, LogLevel } from "../log";
import { isSemver } from "../../domain/semver";
import type { FactsChange, SimulatedCluster } from "./simulated-cluster";

// The simulated cluster behind an agent that has no real one (the reference agent's default, the
// simulator's fleet): directives change its made-up facts over the next heartbeats, as a real
// cluster's would, and are acknowledged at once, invalid ones too (there is nothing to retry).

export type BackendLog = (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;

/** What a simulated cluster reports it can do (disconnect included); the agent adds rotate. */
const SIMULATED_CAPABILITIES = ["disconnect", "drain", "upgrade", "drainNodePool"];

function stringParam(d: Directive, ...keys: string[]): string | null {
  for (const key of keys) {
    const v = directiveParam(d, key);
    if (typeof v === "string" && v) return v;
  }
  return null;
}

export class SimulatedBackend implements ClusterBackend {
  /** One step per heartbeat answer: tests and the simulator count an upgrade in heartbeats. */
  readonly pace = "heartbeat";
  readonly capabilities = SIMULATED_CAPABILITIES;
  /** Made-up facts need no reading: always fresh. */
  get factsReadAt(): number {
    return Infinity;
  }

  constructor(
    readonly facts: SimulatedCluster,
    private readonly log: BackendLog,
  ) {}

  async collect(): Promise<FactsReport> {
    return this.facts.report();
  }

  report(): FactsReport {
    return this.facts.report();
  }

  /** A simulated upgrade survives restarts: the stored versions are what the cluster runs now. */
  restore(record: Pick<ClusterRecord, "agentVersion" | "kubernetesVersion">): void {
    if (record.agentVersion) this.facts.agentVersion = record.agentVersion;
    if (record.kubernetesVersion) this.facts.kubernetesVersion = record.kubernetesVersion;
  }

  async progress(): Promise<void> {
    for (const change of this.facts.tick()) this.logChange(change);
  }

  ackEntries(ids: string[]): AckEntry[] {
    return ids;
  }

  start(d: Directive): void {
    switch (d.type) {
      case "drain":
        this.facts.startDrain();
        this.log("info", "DRAIN", "drain requested: evicting workloads", { id: d.id, pods: this.facts.workloads.pods });
        return;
      case "upgrade":
        return this.startUpgrade(d);
      case "drainNodePool": {
        const pool = stringParam(d, "nodePool", "name");
        if (!pool || !this.facts.startNodePoolDrain(pool)) {
          this.log(
            "warn",
            "DIRECTIVE_INVALID",
            `drainNodePool names no node pool of this cluster (${pool ?? "none"}): acknowledged and ignored`,
            { id: d.id },
          );
          return;
        }
        this.log("info", "NODE_POOL_DRAIN", `draining node pool ${pool}`, { id: d.id, nodePool: pool });
        return;
      }
      default:
        this.log(
          "warn",
          "DIRECTIVE_UNKNOWN",
          `unknown directive type "${d.type}": acknowledged and ignored (a newer agent may support it)`,
          { id: d.id },
        );
    }
  }

  private startUpgrade(d: Directive): void {
    const version = stringParam(d, "version", "agentVersion");
    const component = stringParam(d, "component");
    const kubernetes = stringParam(d, "kubernetesVersion") ?? (component === "kubernetes" ? version : null);
    const agent = component === "kubernetes" ? null : version;
    if ((!agent && !kubernetes) || (agent && !isSemver(agent, true)) || (kubernetes && !isSemver(kubernetes, true))) {
      this.log("warn", "DIRECTIVE_INVALID", "upgrade directive without a valid semver version: acknowledged and ignored", {
        id: d.id,
      });
      return;
    }
    this.facts.startUpgrade({
      agentVersion: agent ?? undefined,
      kubernetesVersion: kubernetes?.replace(/^v/, "") ?? undefined,
    });
    this.log("info", "UPGRADE_STARTED", "upgrade requested", {
      id: d.id,
      from: this.facts.agentVersion,
      agentVersion: agent ?? undefined,
      kubernetesVersion: kubernetes ?? undefined,
    });
  }

  private logChange(change: FactsChange) {
    switch (change.kind) {
      case "upgrade-complete":
        this.log("info", "UPGRADE_COMPLETE", "upgrade finished: reporting the new version", {
          agentVersion: change.agentVersion,
          kubernetesVersion: change.kubernetesVersion,
        });
        break;
      case "pool-removed":
        this.log("info", "NODE_POOL_REMOVED", `node pool ${change.name} drained and removed`, { nodePool: change.name });
        break;
      case "drain-complete":
        this.log("info", "DRAIN_COMPLETE", "all workloads drained");
        break;
    }
  }
}
