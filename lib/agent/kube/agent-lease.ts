import type { LogCode, LogFields, LogLevel } from "../log";
import { KubeApiError, type KubeClient } from "./kube-client";

// One writer per cluster: the agent holds a coordination.k8s.io Lease in its namespace before it
// writes its state or heartbeats, as client-go's leader election does (holderIdentity = the pod's
// name, renewTime, leaseDurationSeconds; a Lease whose holder stopped renewing for its duration is
// taken over, counting a transition). The manifest creates the Lease, since RBAC cannot limit
// `create` by name; the agent only gets and updates that one object. A second replica (a rollout
// that overlapped, someone scaling to 2) waits with one log line.

export interface AgentLeaseOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  /** Who holds it: the pod's name. */
  identity: string;
  leaseDurationSeconds?: number;
  /** How often the holder renews, and a waiting replica tries again. */
  retryPeriodMs?: number;
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
}

interface LeaseObject {
  metadata: { name: string; namespace: string; resourceVersion?: string; [k: string]: unknown };
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
  /** Until when (local clock) the last successful renewal lets this agent act. */
  private heldUntil = -Infinity;
  private lastRenew = -Infinity;
  /** The other holder's record as last seen, and when it was first seen that way (client-go's observedTime). */
  private observed: { record: string; at: number } | null = null;
  private waitingLogged = false;
  private waiting = false;

  /** The Lease's holder and leaseTransitions as last read or written (the agent's /metrics). */
  lastRecord: { holder: string | null; transitions: number } | null = null;

  constructor(private readonly o: AgentLeaseOptions) {}

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
    return this.o.now() < this.heldUntil;
  }

  private path() {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.o.namespace}/leases/${this.o.name}`;
  }

  /** One attempt to acquire or renew (client-go's tryAcquireOrRenew); true when held afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const res = await this.o.client.request("getLease", this.path(), { allow: [404] });
    if (res.status === 404) {
      throw new KubeApiError(
        404,
        "NotFound",
        `${this.location} does not exist: the manifest creates it (kubectl apply it again)`,
        "getLease",
      );
    }
    const lease = res.body as LeaseObject;
    const spec = lease.spec ?? {};
    const now = this.o.now();
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
            `another agent (${holder}) holds the ${this.location}: waiting for it to stop, so that one agent writes the state and heartbeats`,
            { holder },
          );
        }
        return false;
      }
    }
    const mine = holder === this.o.identity;
    const next: LeaseObject = {
      ...lease,
      spec: {
        holderIdentity: this.o.identity,
        leaseDurationSeconds: this.o.leaseDurationSeconds ?? LEASE_DURATION_SECONDS,
        acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    };
    try {
      await this.o.client.request("updateLease", this.path(), { body: next });
    } catch (err) {
      // Another replica updated it first: it holds it now.
      if (err instanceof KubeApiError && err.status === 409) return false;
      throw err;
    }
    if (!mine) {
      this.o.log("info", "LEASE_ACQUIRED", `holding the ${this.location}`, { identity: this.o.identity });
      this.waitingLogged = false;
    }
    this.lastRecord = { holder: this.o.identity, transitions: next.spec?.leaseTransitions ?? 0 };
    this.observed = null;
    this.waiting = false;
    this.lastRenew = now;
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
   * Renews every retry period until the signal aborts; calls `lost` once (and returns) when no
   * renewal succeeded for two thirds of the duration: another replica may take it over after that.
   */
  async keepRenewing(signal: AbortSignal, lost: () => void): Promise<void> {
    while (!signal.aborted) {
      await this.o.sleep(this.retryMs, signal);
      if (signal.aborted) return;
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch (err) {
        this.o.log("warn", "KUBE_API_ERROR", `could not renew the ${this.location}: ${(err as Error).message}`);
      }
      if (!ok && this.o.now() >= this.lastRenew + (this.durationMs * 2) / 3) {
        this.heldUntil = -Infinity;
        this.o.log("error", "LEASE_LOST", `lost the ${this.location}: stopping, so that only one agent acts for the cluster`);
        lost();
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
      const now = microTime(this.o.now());
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
