import type { AckEntry, BackendLog, ClusterBackend } from "../cluster-backend";
import type { ClusterRecord } from "../state";
import { directiveParam, type Directive } from "../directives";
import type { FactsReport } from "../facts";
import { hashSeed, seededRandom } from "../clock";
import { AGENT_VERSION } from "../version";
import { clusterCapabilities, isDirectiveType, type ClusterDirectiveType } from "../../domain/agent-protocol";
import { DEFAULT_KUBERNETES_VERSION, isSemver } from "../../domain/semver";
import { SimulatedCluster, simulatedClusterUid, type FactsChange } from "./simulated-cluster";

// The simulated cluster behind an agent that has no real one (the CLI's --facts simulated, the
// simulator's fleet, tests): directives change its made-up facts over the next heartbeats, as a
// real cluster's would, and are acknowledged at once, invalid ones too (there is nothing to retry).

function stringParam(d: Directive, ...keys: string[]): string | null {
  for (const key of keys) {
    const v = directiveParam(d, key);
    if (typeof v === "string" && v) return v;
  }
  return null;
}

/**
 * How the simulated cluster carries out each cluster directive of the protocol's table
 * (lib/domain/agent-protocol.ts): typed by the table, so a new type does not compile until it is here.
 */
export const SIMULATED_DIRECTIVES: { [T in ClusterDirectiveType]: (b: SimulatedBackend, d: Directive) => void } = {
  upgrade: (b, d) => b.startUpgrade(d),
  drain: (b, d) => {
    b.facts.startDrain();
    b.log("info", "DRAIN", "drain requested: evicting workloads", { id: d.id, pods: b.facts.workloads.pods });
  },
  resume: (b, d) => {
    b.facts.stopDrain();
    b.log("info", "DRAIN_CANCELLED", "deregistration cancelled: workloads come back", { id: d.id });
  },
  drainNodePool: (b, d) => {
    const pool = stringParam(d, "nodePool", "name");
    if (!pool || !b.facts.startNodePoolDrain(pool)) {
      const message = `drainNodePool names no node pool of this cluster (${pool ?? "none"}): acknowledged and ignored`;
      b.log("warn", "DIRECTIVE_INVALID", message, { id: d.id });
      return;
    }
    b.log("info", "NODE_POOL_DRAIN", `draining node pool ${pool}`, { id: d.id, nodePool: pool });
  },
};

/** What an agent without a real cluster is given: a plausible simulated one derived from its name. */
export function simulatedBackend(o: {
  name: string;
  agentVersion?: string;
  kubernetesVersion?: string;
  clusterUid?: string;
}): (log: BackendLog) => SimulatedBackend {
  const facts = SimulatedCluster.typical({
    agentVersion: o.agentVersion ?? AGENT_VERSION,
    kubernetesVersion: o.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION,
    random: seededRandom(hashSeed(o.name)),
    clusterUid: o.clusterUid ?? simulatedClusterUid(o.name),
  });
  return (log) => new SimulatedBackend(facts, log);
}

export class SimulatedBackend implements ClusterBackend {
  /** One step per heartbeat answer: tests and the simulator count an upgrade in heartbeats. */
  readonly pace = "heartbeat";
  /** Every cluster directive: a simulated cluster has no node actions to withhold. */
  readonly capabilities = clusterCapabilities({ nodeActions: true });
  /** Made-up facts need no reading: always fresh. */
  get factsReadAt(): number {
    return Infinity;
  }

  constructor(
    readonly facts: SimulatedCluster,
    readonly log: BackendLog,
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
    if (isDirectiveType(d.type) && Object.hasOwn(SIMULATED_DIRECTIVES, d.type)) {
      SIMULATED_DIRECTIVES[d.type as ClusterDirectiveType](this, d);
      return;
    }
    const message = `unknown directive type "${d.type}": acknowledged and ignored (a newer agent may support it)`;
    this.log("warn", "DIRECTIVE_UNKNOWN", message, { id: d.id });
  }

  startUpgrade(d: Directive): void {
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
