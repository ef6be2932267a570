import { performance } from "node:perf_hooks";
import type { LogCode, LogFields, LogLevel } from "../log";
import type { HeartbeatLease } from "../../domain/agent-protocol";
import { KubeApiError, type KubeClient } from "./kube-client";

// One writer per cluster: the agent holds a coordination.k8s.io Lease in its namespace before it
// writes its state or carries out a directive in the cluster, as client-go's leader election does
// (holderIdentity = the pod's name, renewTime, leaseDurationSeconds; a Lease whose holder stopped
// renewing for its duration is taken over, counting a transition). The agent creates the Lease
// when it is missing (GitOps tools commonly exclude Leases from sync), as client-go's LeaseLock
// does; RBAC cannot limit `create` by name, so get and update stay limited to this one object.
// A second replica (a rollout that overlapped, someone scaling to 2) waits with one log line.
//
// Renewals that fail (an API server restarting, throttled, an etcd defrag) do not stop the agent:
// its heartbeats go on reporting the API server as it is, and only state writes and directives
// wait for the Lease. The agent steps down only when it sees another holder.
//
// Its own timing (its deadline, when a record was first seen) is on a monotonic clock: a wall
// clock that jumps must not make it believe it holds the Lease, or has lost it. The wall clock is
// only written into the Lease's MicroTimes, for other readers.

export interface AgentLeaseOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  /** Who holds it: the pod's name. */
  identity: string;
  leaseDurationSeconds?: number;
  /** How often the holder renews, and a waiting replica tries again. */
  retryPeriodMs?: number;
  /** Milliseconds that only move forward (default performance.now): the Lease's own timing. */
  monotonicNow?: () => number;
  /** The wall clock (default Date.now): only for the renewTime and acquireTime written in the Lease. */
  wallNow?: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
}

interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string; creationTimestamp?: string; [k: string]: unknown };
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export const LEASE_DURATION_SECONDS = 30;
export const LEASE_RETRY_PERIOD_MS = 5_000;

/** A MicroTime as the API server writes it (RFC 3339, six fractional digits). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export class AgentLease {
  /** Until when (monotonic clock) the last successful renewal lets this agent act. */
  private heldUntil = -Infinity;
  /** The other holder's record as last seen, and when it was first seen that way (client-go's observedTime). */
  private observed: { record: string; at: number } | null = null;
  /** What this agent last wrote as holder: what its heartbeats report. */
  private mine: HeartbeatLease | null = null;
  private waitingLogged = false;
  private failingLogged = false;
  private waiting = false;
  private readonly monotonic: () => number;
  private readonly wall: () => number;

  /** The Lease's holder and leaseTransitions as last read or written (the agent's /metrics). */
  lastRecord: { holder: string | null; transitions: number } | null = null;

  constructor(private readonly o: AgentLeaseOptions) {
    this.monotonic = o.monotonicNow ?? (() => performance.now());
    this.wall = o.wallNow ?? Date.now;
  }

  get location(): string {
    return `Lease ${this.o.namespace}/${this.o.name}`;
  }

  private get durationMs(): number {
    return (this.o.leaseDurationSeconds ?? LEASE_DURATION_SECONDS) * 1000;
  }

  private get retryMs(): number {
    return this.o.retryPeriodMs ?? LEASE_RETRY_PERIOD_MS;
  }

  /**
   * Waiting while another live agent holds the Lease, with the API reachable: ready to take over.
   * An upgrade's new pod reports Ready on this, so the rollout can stop the old agent.
   */
  get standby(): boolean {
    return this.waiting;
  }

  /** True while this agent holds the Lease (renewed within two thirds of its duration). */
  get held(): boolean {
    return this.monotonic() < this.heldUntil;
  }

  /**
   * The Lease as this agent last held it (holder, transitions, when the Lease was created), for
   * its heartbeats: the control plane refuses an agent whose Lease was taken over since.
   */
  report(): HeartbeatLease | null {
    return this.mine;
  }

  private collection() {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.o.namespace}/leases`;
  }

  private path() {
    return `${this.collection()}/${this.o.name}`;
  }

  private spec(previous: LeaseObject["spec"], mine: boolean, wallNow: number): NonNullable<LeaseObject["spec"]> {
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: this.o.leaseDurationSeconds ?? LEASE_DURATION_SECONDS,
      acquireTime: mine && previous?.acquireTime ? previous.acquireTime : microTime(wallNow),
      renewTime: microTime(wallNow),
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (mine || !previous ? 0 : 1),
    };
  }

  /** Reads the Lease; a missing one is created holding it (null: someone created it first, read again). */
  private async readOrCreate(): Promise<{ lease: LeaseObject; created: boolean } | null> {
    const res = await this.o.client.request("getLease", this.path(), { allow: [404] });
    if (res.status !== 404) return { lease: res.body as LeaseObject, created: false };
    const body: LeaseObject = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.o.name, namespace: this.o.namespace },
      spec: this.spec(undefined, false, this.wall()),
    };
    const created = await this.o.client.request("createLease", this.collection(), { body, allow: [409] });
    // AlreadyExists: another replica created it between our read and our create.
    if (created.status === 409) return null;
    this.o.log("info", "LEASE_CREATED", `created the ${this.location} (none existed)`, { identity: this.o.identity });
    return { lease: created.body as LeaseObject, created: true };
  }

  /** One attempt to acquire or renew (client-go's tryAcquireOrRenew); true when held afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.monotonic();
    const found = (await this.readOrCreate()) ?? (await this.readOrCreate());
    if (!found) return false;
    if (found.created) return this.acquired(found.lease, now, true);
    const lease = found.lease;
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity || "";
    this.lastRecord = { holder: holder || null, transitions: spec.leaseTransitions ?? 0 };
    if (holder && holder !== this.o.identity) {
      // Expiry is judged by when this agent last saw the record change, not by the holder's
      // renewTime: the two clocks need not agree.
      const record = `${holder}|${spec.renewTime ?? ""}`;
      if (this.observed?.record !== record) this.observed = { record, at: now };
      const duration = (spec.leaseDurationSeconds ?? LEASE_DURATION_SECONDS) * 1000;
      if (now < this.observed.at + duration) {
        this.heldUntil = -Infinity;
        this.waiting = true;
        if (!this.waitingLogged) {
          this.waitingLogged = true;
          this.o.log(
            "warn",
            "LEASE_WAITING",
            `another agent (${holder}) holds the ${this.location}: waiting for it to stop, so that one agent writes the state and acts in the cluster`,
            { holder },
          );
        }
        return false;
      }
    }
    const mine = holder === this.o.identity;
    const next: LeaseObject = { ...lease, spec: this.spec(spec, mine, this.wall()) };
    let updated: LeaseObject;
    try {
      updated = (await this.o.client.request("updateLease", this.path(), { body: next })).body as LeaseObject;
    } catch (err) {
      // Another replica updated it first: the next read shows who holds it.
      if (err instanceof KubeApiError && err.status === 409) return false;
      throw err;
    }
    return this.acquired(updated, now, !mine);
  }

  private acquired(lease: LeaseObject, now: number, fresh: boolean): true {
    if (fresh) {
      this.o.log("info", "LEASE_ACQUIRED", `holding the ${this.location}`, { identity: this.o.identity });
      this.waitingLogged = false;
    }
    if (this.failingLogged) {
      this.failingLogged = false;
      this.o.log("info", "LEASE_ACQUIRED", `renewed the ${this.location} again`, { identity: this.o.identity });
    }
    this.mine = {
      holder: this.o.identity,
      transitions: lease.spec?.leaseTransitions ?? 0,
      ...(lease.metadata.creationTimestamp ? { createdAt: lease.metadata.creationTimestamp } : {}),
    };
    this.lastRecord = { holder: this.o.identity, transitions: this.mine.transitions };
    this.observed = null;
    this.waiting = false;
    this.heldUntil = now + (this.durationMs * 2) / 3;
    return true;
  }

  /** Tries until the Lease is held (or the signal aborts: false). API failures are retried. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      try {
        if (await this.tryAcquireOrRenew()) return true;
      } catch (err) {
        this.o.log("warn", "KUBE_API_ERROR", `could not take the ${this.location}: ${(err as Error).message}`);
      }
      await this.o.sleep(this.retryMs, signal);
    }
    return false;
  }

  /**
   * Renews every retry period until the signal aborts. Failed renewals are retried for as long as
   * they fail (past two thirds of the duration `held` turns false: state writes and directives
   * wait); `lost` is called once (and this returns) only when another agent is seen holding it.
   */
  async keepRenewing(signal: AbortSignal, lost: (holder: string) => void): Promise<void> {
    while (!signal.aborted) {
      await this.o.sleep(this.retryMs, signal);
      if (signal.aborted) return;
      try {
        if (await this.tryAcquireOrRenew()) continue;
      } catch (err) {
        if (!this.failingLogged && !this.held) {
          this.failingLogged = true;
          this.o.log(
            "warn",
            "LEASE_RENEW_FAILING",
            `could not renew the ${this.location}: heartbeats go on; state writes and directives wait until it is renewed (${(err as Error).message})`,
          );
        }
        continue;
      }
      if (this.waiting) {
        this.heldUntil = -Infinity;
        const holder = this.observed?.record.split("|")[0] ?? "another agent";
        this.o.log(
          "error",
          "LEASE_LOST",
          `${holder} holds the ${this.location} now: stepping down, so that only one agent acts for the cluster`,
          {
            holder,
          },
        );
        lost(holder);
        return;
      }
    }
  }

  /** Gives the Lease up on a clean stop, so a replacement pod takes it at once (client-go's ReleaseOnCancel). */
  async release(): Promise<void> {
    if (!this.held) return;
    this.heldUntil = -Infinity;
    try {
      const lease = (await this.o.client.request("getLease", this.path())).body as LeaseObject;
      if (lease.spec?.holderIdentity !== this.o.identity) return;
      const now = microTime(this.wall());
      await this.o.client.request("updateLease", this.path(), {
        body: {
          ...lease,
          spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
        },
      });
    } catch (err) {
      this.o.log("warn", "KUBE_API_ERROR", `could not release the ${this.location}: ${(err as Error).message}`);
    }
  }
}
