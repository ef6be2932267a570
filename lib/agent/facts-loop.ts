import type { ClusterBackend } from "./cluster-backend";
import type { Clock } from "./clock";
import type { FactsReport } from "./facts";

// The cluster's facts are read on their own schedule, never in a heartbeat's way: a 150,000-pod
// recount, a slow API server or a long drain step must not delay the heartbeat that keeps the
// cluster Ready. Each round reads the facts (abandoned past a deadline), then moves the running
// directives on; the heartbeat sends the latest facts (each part once read: the first heartbeat
// after a start goes at once, with what has been read so far, possibly nothing), the API server's
// health marked degraded once it is too old.

/** A round never gets less than this: a full recount of a very big cluster takes tens of seconds. */
export const FACTS_DEADLINE_MS = 60_000;

export class FactsDeadlineError extends Error {
  constructor(ms: number) {
    super(`the cluster's facts were not read within ${Math.round(ms / 1000)}s`);
    this.name = "FactsDeadlineError";
  }
}

export interface FactsLoopOptions {
  clock: Clock;
  /** The heartbeat interval: one round per interval. */
  intervalMs: () => number;
  /** Defaults to the larger of FACTS_DEADLINE_MS and two intervals. */
  deadlineMs?: () => number;
  /** A round that failed outside the backend's own handling (a bug): logged, the loop goes on. */
  onError: (err: unknown) => void;
}

/** How the agent moves a backend's facts on, whatever its pace. */
export interface FactsDriver {
  /** Starts reading (a real cluster's rounds); a heartbeat never waits for it. */
  start(): void;
  /** Resolves once the first read is over (registration reports the version it read). */
  ready(): Promise<void>;
  /** The facts a heartbeat sends now. */
  report(): FactsReport;
  /** A heartbeat answer was handled: a backend paced by heartbeats moves one step. */
  afterAnswer(): Promise<void>;
  /** A directive started: move it on soon. */
  wake(): void;
  close(): void;
}

export class FactsLoop implements FactsDriver {
  private first: Promise<void> | null = null;
  private wakeUp = new AbortController();
  private readonly stop = new AbortController();

  constructor(
    private readonly backend: ClusterBackend,
    private readonly o: FactsLoopOptions,
  ) {}

  private deadlineMs(): number {
    return this.o.deadlineMs?.() ?? Math.max(FACTS_DEADLINE_MS, 2 * this.o.intervalMs());
  }

  /** One round: the facts within the deadline, then the directives. */
  async round(): Promise<void> {
    const ms = this.deadlineMs();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new FactsDeadlineError(ms)), ms);
    try {
      await this.backend.collect(AbortSignal.any([deadline.signal, this.stop.signal]));
    } finally {
      clearTimeout(timer);
    }
    if (!this.stop.signal.aborted) await this.backend.progress();
  }

  /** Rounds until close(); the first starts at once. */
  start(): void {
    if (this.first) return;
    this.first = this.guardedRound();
    void this.first.then(() => this.loop());
  }

  private guardedRound(): Promise<void> {
    return this.round().catch((err: unknown) => this.o.onError(err));
  }

  private async loop() {
    while (!this.stop.signal.aborted) {
      await this.o.clock.sleep(this.o.intervalMs(), AbortSignal.any([this.wakeUp.signal, this.stop.signal]));
      if (this.wakeUp.signal.aborted) this.wakeUp = new AbortController();
      if (this.stop.signal.aborted) return;
      await this.guardedRound();
    }
  }

  /** Resolves once the first round is over (registration reports the version it read). */
  async ready(): Promise<void> {
    this.start();
    await this.first;
  }

  /** Starts the next round now (a directive arrived), or right after the one running. */
  wake(): void {
    this.wakeUp.abort();
  }

  close(): void {
    this.stop.abort();
  }

  /** The loop keeps its own schedule: heartbeats never wait for it. */
  async afterAnswer(): Promise<void> {}

  /**
   * The latest facts. Older than a round may take, they no longer say how the API server is now:
   * an "ok" from then is reported as "degraded" (the console shows why), "down" stays down.
   */
  report(): FactsReport {
    const facts = this.backend.report();
    const stale = this.o.clock.now() - this.backend.factsReadAt > this.deadlineMs() + this.o.intervalMs();
    if (!stale || !facts.health || facts.health.apiServer !== "ok") return facts;
    return { ...facts, health: { ...facts.health, apiServer: "degraded" } };
  }
}

/** A backend whose facts move one step per heartbeat answer (a simulated cluster): nothing runs between. */
export class HeartbeatPace implements FactsDriver {
  constructor(private readonly backend: ClusterBackend) {}
  start(): void {}
  async ready(): Promise<void> {}
  report(): FactsReport {
    return this.backend.report();
  }
  afterAnswer(): Promise<void> {
    return this.backend.progress();
  }
  wake(): void {}
  close(): void {}
}

/** The driver for a backend's pace. */
export function factsDriver(backend: ClusterBackend, options: FactsLoopOptions): FactsDriver {
  return backend.pace === "own" ? new FactsLoop(backend, options) : new HeartbeatPace(backend);
}
