import type { AgentHooks } from "./agent-options";
import type { BackendSource, ClusterBackend } from "./cluster-backend";
import type { AgentLogger, LogEntry } from "./log";

// The agent's Prometheus metrics, served at /metrics on the health port with --metrics. Written
// by hand in the text exposition format: a dozen series do not need prom-client's registry in the
// agent's bundle. The numbers come from what the agent already tells its embedders (hooks), its
// log (codes are a stable interface) and its backend's facts rounds, so no loop has to know.

/** What a Lease looks like to the agent: whether it holds it, who does and how often it changed hands. */
export interface LeaseView {
  held: boolean;
  holder: string | null;
  transitions: number | null;
}

/** One part of the facts: how long its last read took, and when it last succeeded (epoch ms). */
export interface FactsPartSample {
  part: string;
  durationMs: number | null;
  readAt: number;
}

export interface AgentMetricsOptions {
  now?: () => number;
  version: string;
  lease?: () => LeaseView | null;
  ready?: () => boolean;
}

const MAX_REMEMBERED_DIRECTIVES = 1000;

type Labels = Record<string, string>;

/** A label value as the exposition format wants it: backslash, double quote and newline escaped. */
function labelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function series(name: string, labels: Labels, value: number): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${labelValue(v)}"`);
  const text = Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : value < 0 ? "-Inf" : "NaN";
  return `${name}${pairs.length ? `{${pairs.join(",")}}` : ""} ${text}`;
}

class Family {
  private readonly samples = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly type: "counter" | "gauge",
    readonly help: string,
  ) {}
  add(labels: Labels, by = 1) {
    const key = JSON.stringify(labels);
    const sample = this.samples.get(key) ?? { labels, value: 0 };
    sample.value += by;
    this.samples.set(key, sample);
  }
  set(labels: Labels, value: number) {
    this.samples.set(JSON.stringify(labels), { labels, value });
  }
  clear() {
    this.samples.clear();
  }
  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} ${this.type}`,
      ...[...this.samples.values()].map((s) => series(this.name, s.labels, s.value)),
    ];
  }
}

export class AgentMetrics {
  private readonly now: () => number;
  private lastHeartbeatAt: number | null = null;
  private readonly directiveTypes = new Map<string, string>();
  private readonly factsParts = new Map<string, FactsPartSample>();

  private readonly info = new Family("fleet_agent_info", "gauge", "The agent's build, always 1.");
  private readonly ready = new Family("fleet_agent_ready", "gauge", "1 when registered and heartbeating (what /readyz says).");
  private readonly heartbeats = new Family(
    "fleet_agent_heartbeats_total",
    "counter",
    "Heartbeats sent, by result: ok, or the log code of the failure.",
  );
  private readonly lastHeartbeat = new Family(
    "fleet_agent_last_heartbeat_timestamp_seconds",
    "gauge",
    "When the control plane last accepted a heartbeat (Unix time).",
  );
  private readonly heartbeatAge = new Family(
    "fleet_agent_heartbeat_age_seconds",
    "gauge",
    "Seconds since the control plane last accepted a heartbeat; absent before the first.",
  );
  private readonly registrations = new Family(
    "fleet_agent_registrations_total",
    "counter",
    "Registration attempts, by result: ok, or the log code of the failure.",
  );
  private readonly factsDuration = new Family(
    "fleet_agent_facts_round_duration_seconds",
    "gauge",
    "How long the last read of each part of the cluster's facts took.",
  );
  private readonly factsAge = new Family(
    "fleet_agent_facts_age_seconds",
    "gauge",
    "Seconds since each part of the cluster's facts was last read in full; absent before the first.",
  );
  private readonly leaseHeld = new Family("fleet_agent_lease_held", "gauge", "1 while this agent holds its Lease.");
  private readonly leaseHolder = new Family(
    "fleet_agent_lease_holder",
    "gauge",
    "1 for the holder of the agent's Lease as last read (its pod name).",
  );
  private readonly leaseTransitions = new Family(
    "fleet_agent_lease_transitions",
    "gauge",
    "The Lease's leaseTransitions as last read: how often it changed hands.",
  );
  private readonly directives = new Family(
    "fleet_agent_directives_total",
    "counter",
    "Directives by type and outcome: received, done or failed.",
  );

  constructor(private readonly o: AgentMetricsOptions) {
    this.now = o.now ?? Date.now;
    this.info.set({ version: o.version }, 1);
  }

  /** The hooks that count heartbeats, registrations and directives received. */
  hooks(): AgentHooks {
    return {
      onHeartbeat: () => {
        this.heartbeats.add({ result: "ok" });
        this.lastHeartbeatAt = this.now();
      },
      onRegistered: () => this.registrations.add({ result: "ok" }),
      onDirective: (d) => {
        this.directives.add({ type: d.type, outcome: "received" });
        if (this.directiveTypes.size >= MAX_REMEMBERED_DIRECTIVES) this.directiveTypes.clear();
        this.directiveTypes.set(d.id, d.type);
      },
      onFailure: (failure, phase) => {
        if (phase === "heartbeat") this.heartbeats.add({ result: failure.code });
        else if (phase === "register") this.registrations.add({ result: failure.code });
      },
    };
  }

  /** Counts what the log says of directive outcomes, then passes every entry on. */
  logger(inner: AgentLogger): AgentLogger {
    return {
      log: (entry: LogEntry) => {
        this.observe(entry);
        inner.log(entry);
      },
    };
  }

  private observe(entry: LogEntry) {
    if (entry.code !== "DIRECTIVE_DONE" && entry.code !== "DIRECTIVE_FAILED") return;
    const id = typeof entry.fields?.id === "string" ? entry.fields.id : "";
    const type = this.directiveTypes.get(id) ?? "unknown";
    this.directives.add({ type, outcome: entry.code === "DIRECTIVE_DONE" ? "done" : "failed" });
  }

  /** Records one read of a part of the facts (a backend that reads its parts apart reports each). */
  factsRead(sample: FactsPartSample) {
    this.factsParts.set(sample.part, sample);
  }

  /**
   * The backend with its facts rounds timed: the whole read is the part `all` until the backend
   * reports parts of its own through factsRead.
   */
  instrument(source: BackendSource): BackendSource {
    const wrap = (backend: ClusterBackend): ClusterBackend => {
      return new Proxy(backend, {
        get: (target, prop) => {
          if (prop === "collect")
            return async (signal?: AbortSignal) => {
              const started = performance.now();
              try {
                return await target.collect(signal);
              } finally {
                // A failed read keeps the last good time (factsReadAt): the age then grows.
                this.factsRead({ part: "all", durationMs: performance.now() - started, readAt: target.factsReadAt });
              }
            };
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    };
    return typeof source === "function" ? (log) => wrap(source(log)) : wrap(source);
  }

  /** The exposition, read at scrape time. */
  render(): string {
    const now = this.now();
    this.ready.clear();
    if (this.o.ready) this.ready.set({}, this.o.ready() ? 1 : 0);
    this.lastHeartbeat.clear();
    this.heartbeatAge.clear();
    if (this.lastHeartbeatAt !== null) {
      this.lastHeartbeat.set({}, this.lastHeartbeatAt / 1000);
      this.heartbeatAge.set({}, Math.max(0, (now - this.lastHeartbeatAt) / 1000));
    }
    this.factsDuration.clear();
    this.factsAge.clear();
    for (const sample of this.factsParts.values()) {
      if (sample.durationMs !== null) this.factsDuration.set({ part: sample.part }, sample.durationMs / 1000);
      if (Number.isFinite(sample.readAt)) this.factsAge.set({ part: sample.part }, Math.max(0, (now - sample.readAt) / 1000));
    }
    this.leaseHeld.clear();
    this.leaseHolder.clear();
    this.leaseTransitions.clear();
    const lease = this.o.lease?.();
    if (lease) {
      this.leaseHeld.set({}, lease.held ? 1 : 0);
      if (lease.holder) this.leaseHolder.set({ holder: lease.holder }, 1);
      if (lease.transitions !== null) this.leaseTransitions.set({}, lease.transitions);
    }
    const families = [
      this.info,
      this.ready,
      this.heartbeats,
      this.lastHeartbeat,
      this.heartbeatAge,
      this.registrations,
      this.factsDuration,
      this.factsAge,
      this.leaseHeld,
      this.leaseHolder,
      this.leaseTransitions,
      this.directives,
    ];
    return families.flatMap((f) => f.render()).join("\n") + "\n";
  }
}
