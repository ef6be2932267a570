import type https from "node:https";
import path from "node:path";
import { FleetAgent, type AgentResult, type TokenSource } from "../agent";
import type { FaultKind, FaultShares } from "./simulate-args";
import { seededRandom } from "../clock";
import { generateRsaKeyPair, type KeyPair } from "../csr";
import { SimulatedCluster } from "./simulated-cluster";
import { SimulatedBackend } from "./simulated-backend";
import type { Failure } from "../errors";
import { createTlsAgent } from "../http";
import { silentLogger, type AgentLogger } from "../log";
import { generateFleet, type SimClusterSpec } from "./metadata";
import { SimStats } from "./stats";
import { FileStateStore, MemoryStateStore } from "../state";

// Many FleetAgents in one process, each speaking the real protocol over real TLS with its own
// client certificate.
//
// Keys: RSA-2048 generation costs ~50-100 ms of CPU each, so thousands would dominate start-up.
// With --key-pool K < clusters, K keys are generated up front in parallel (async, on libuv's
// thread pool) and shared round-robin; each cluster still gets its own CSR and certificate
// (its own CN and serial), and rotation takes a different pool key. With K >= clusters every
// cluster generates its own key lazily, under the registration concurrency limit.
//
// Connections: one https.Agent per cluster (keep-alive, one socket: a cluster's heartbeats are
// sequential, and each agent holds a different client certificate, so they cannot share
// sockets), plus one shared anonymous https.Agent for registrations, sized to --concurrency.

export interface SimulatorOptions {
  server: URL;
  caPem: string;
  clusters: number;
  intervalSeconds: number;
  token?: TokenSource;
  stateDir?: string;
  concurrency: number;
  faults: FaultShares;
  prefix: string;
  keyPool: number;
  seed: number;
  /** Pairs of clusters that report one kube-system UID (metadata.ts generateFleet). */
  duplicateUids?: number;
  timeoutMs: number;
  /** A new, resumed TLS connection for each request (FleetAgentOptions.closeConnections). */
  closeConnections?: boolean;
  /** Receives every agent's log entries (the --log-file); default: none. */
  logger?: AgentLogger;
  now?: () => number;
  /** Start-up progress (key generation). */
  onProgress?: (message: string) => void;
}

/**
 * At most `limit` registrations in flight, and a shared pause: when the server rate-limits one
 * simulated agent, it is rate-limiting all of them (same source address), so none should start
 * another registration before Retry-After has passed.
 */
export class Semaphore {
  private active = 0;
  private waiting: Array<() => void> = [];
  private heldUntil = 0;
  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** No new run starts before `time`. */
  holdUntil(time: number) {
    this.heldUntil = Math.max(this.heldUntil, time);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    while (this.now() < this.heldUntil) await new Promise((resolve) => setTimeout(resolve, this.heldUntil - this.now()));
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await fn();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

/**
 * A 429 limits the simulator's one source address, so it holds every simulated agent's next
 * registration. A 503 `overloaded` is an answer to one agent: each waits its own Retry-After with
 * its own jitter, as real agents do; holding all on one answer would send them back as one wave,
 * and the server's answers (spread per refusal) would be measured as something they are not.
 */
export function pausesEveryRegistration(failure: Pick<Failure, "code" | "retryAfterMs">): boolean {
  return failure.code === "RATE_LIMITED" && failure.retryAfterMs !== undefined;
}

/** A fixed set of keys handed out round-robin; `next(avoid)` never returns the key in use. */
export class KeyPool {
  private i = 0;
  constructor(private readonly keys: KeyPair[]) {
    if (keys.length === 0) throw new Error("empty key pool");
  }
  static async generate(size: number, onProgress?: (done: number) => void): Promise<KeyPool> {
    let done = 0;
    const keys = await Promise.all(
      Array.from({ length: size }, async () => {
        const k = await generateRsaKeyPair();
        onProgress?.(++done);
        return k;
      }),
    );
    return new KeyPool(keys);
  }
  get size() {
    return this.keys.length;
  }
  next(avoid?: string): KeyPair {
    for (let tries = 0; tries < this.keys.length; tries++) {
      const key = this.keys[this.i++ % this.keys.length]!;
      if (key.privateKeyPem !== avoid) return key;
    }
    return this.keys[0]!;
  }
}

/** Each cluster gets at most one fault; the shares partition a seeded shuffle of the fleet. */
export function assignFaults(count: number, shares: FaultShares, random: () => number): Array<FaultKind | null> {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const faults: Array<FaultKind | null> = new Array<FaultKind | null>(count).fill(null);
  let cursor = 0;
  for (const kind of ["stop", "flap", "degraded", "late"] as const) {
    const n = Math.round(shares[kind] * count);
    for (let k = 0; k < n && cursor < count; k++) faults[order[cursor++]!] = kind;
  }
  return faults;
}

export class FleetSimulator {
  readonly stats: SimStats;
  private readonly random: () => number;
  private readonly now: () => number;
  private agents: FleetAgent[] = [];
  private runs: Promise<AgentResult>[] = [];
  private anonymous: https.Agent | null = null;
  private stopping = false;
  private registered = new Set<number>();
  private readonly lastHeartbeatAt: Float64Array;

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? Date.now;
    this.random = seededRandom(options.seed ^ 0x5eed);
    this.stats = new SimStats(this.now());
    this.stats.target = options.clusters;
    this.lastHeartbeatAt = new Float64Array(options.clusters).fill(-Infinity);
  }

  /** Clusters with an answered heartbeat at or after `at` (a benchmark's recovery after a restart). */
  heartbeatedSince(at: number): number {
    let n = 0;
    for (const t of this.lastHeartbeatAt) if (t >= at) n++;
    return n;
  }

  async start(): Promise<void> {
    const o = this.options;
    const specs = generateFleet(o.clusters, { prefix: o.prefix, seed: o.seed, duplicateUids: o.duplicateUids });
    const faults = assignFaults(o.clusters, o.faults, this.random);

    let pool: KeyPool | null = null;
    if (o.keyPool < o.clusters) {
      const size = Math.max(2, o.keyPool);
      o.onProgress?.(`generating a pool of ${size} RSA-2048 keys`);
      pool = await KeyPool.generate(size, (done) => {
        if (done === size || done % 50 === 0) o.onProgress?.(`keys ${done}/${size}`);
      });
    }
    if (this.stopping) return;

    this.anonymous = createTlsAgent(o.caPem, undefined, { keepAlive: true, maxSockets: o.concurrency });
    const slots = new Semaphore(o.concurrency, this.now);

    for (const spec of specs) {
      const fault = faults[spec.index] ?? null;
      const agent = this.createAgent(spec, fault, pool, slots);
      this.agents.push(agent);
      this.runs.push(
        agent.run().then((result) => {
          this.stats.outcome(
            result.outcome === "stopped" && fault === "stop" && !this.stopping ? "stopped-by-fault" : result.outcome,
          );
          return result;
        }),
      );
    }
  }

  private createAgent(spec: SimClusterSpec, fault: FaultKind | null, pool: KeyPool | null, slots: Semaphore): FleetAgent {
    const o = this.options;
    const random = seededRandom(o.seed * 7919 + spec.index);
    const facts = new SimulatedCluster(spec.facts, random);
    if (fault === "degraded") {
      facts.setHealthMode("degraded");
      this.stats.fault("degraded");
    }
    const intervalMs = o.intervalSeconds * 1000;
    // stop: goes silent for good after a few heartbeats; flap: goes silent for 3-6 intervals
    // every few heartbeats; late: acknowledges directives 2-4 intervals after receiving them.
    const stopAfter = 2 + Math.floor(random() * 4);
    const flapEvery = 3 + Math.floor(random() * 4);
    const ackDelayMs = fault === "late" ? Math.round((2 + random() * 2) * intervalMs) : 0;
    if (fault === "late") this.stats.fault("late");

    const agent: FleetAgent = new FleetAgent({
      server: o.server,
      name: spec.name,
      labels: spec.labels,
      apiServerUrl: spec.apiServerUrl,
      kubernetesVersion: spec.facts.kubernetesVersion,
      store: o.stateDir ? new FileStateStore(path.join(o.stateDir, spec.name)) : new MemoryStateStore(spec.name),
      trust: { caPem: o.caPem },
      token: o.token,
      clusterCaFingerprint: spec.clusterCaFingerprint,
      cluster: (log) => new SimulatedBackend(facts, log),
      logger: o.logger ?? silentLogger,
      random,
      keys: pool ? async (current) => pool.next(current) : undefined,
      heartbeatIntervalSeconds: o.intervalSeconds,
      ackDelayMs,
      requestTimeoutMs: o.timeoutMs,
      closeConnections: o.closeConnections,
      registrationSlot: (fn) => slots.run(fn),
      anonymousAgent: this.anonymous ?? undefined,
      firstHeartbeatDelayMs: Math.floor(random() * intervalMs),
      hooks: {
        onRegistered: () => this.markRegistered(spec.index),
        onHeartbeat: (info) => {
          this.markRegistered(spec.index);
          this.lastHeartbeatAt[spec.index] = this.now();
          this.stats.heartbeat(info.latencyMs);
          if (fault === "stop" && info.seq >= stopAfter) {
            this.stats.fault("stop");
            agent.stop();
          } else if (fault === "flap" && info.seq % flapEvery === 0) {
            this.stats.fault("flap");
            agent.pause(Math.round((3 + random() * 3) * intervalMs));
          }
        },
        onDirective: () => {
          this.stats.directives += 1;
        },
        onRotated: () => {
          this.stats.rotations += 1;
        },
        onFailure: (failure, phase) => {
          this.stats.error(failure.code, phase);
          if (phase === "register" && pausesEveryRegistration(failure)) slots.holdUntil(this.now() + (failure.retryAfterMs ?? 0));
        },
      },
    });
    return agent;
  }

  private markRegistered(index: number) {
    if (this.registered.has(index)) return;
    this.registered.add(index);
    this.stats.registered = this.registered.size;
  }

  /** Resolves when every agent has ended (all stopped, rejected, disconnected ...). */
  async done(): Promise<void> {
    await Promise.allSettled(this.runs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const agent of this.agents) agent.stop();
    await this.done();
    this.anonymous?.destroy();
  }
}
