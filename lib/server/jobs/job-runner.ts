import "server-only";
import { errorText } from "@/lib/domain/error-text";
import { log } from "@/lib/server/log";
import { incCounter, observe } from "@/lib/server/metrics/registry";

// The one way to run background work on an interval. Each job is named, never overlaps itself
// (a tick that finds the previous run still going is skipped and counted), logs its errors
// instead of throwing them, reports a metric per job, and stops on shutdown: stop() clears the
// timers and waits for runs in flight, so the database is not closed under them.

export type Job = {
  /** kebab-case; the `job` label of the metrics and the field of the logs */
  name: string;
  everyMs: number;
  run: () => unknown;
  /** also run once at start instead of waiting for the first interval */
  runAtStart?: boolean;
};

/** The timing a runner uses; tests pass a fake one. */
export type JobClock = {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
  now(): number;
};

const realClock: JobClock = {
  setInterval: (fn, ms) => {
    const timer = setInterval(fn, ms);
    // Jobs never keep the process alive on their own: the servers do, until shutdown.
    timer.unref();
    return timer;
  },
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
  now: () => performance.now(),
};

export const JOB_RUNS = "fleet_job_runs_total";
export const JOB_SECONDS = "fleet_job_duration_seconds";
const DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 2.5, 10, 60];

/** Whole microseconds: a sub-microsecond run would otherwise print as 1e-7, which some parsers refuse. */
const seconds = (ms: number) => Math.round(ms * 1000) / 1e6;

export type JobRunner = {
  /** Stops every job's timer and waits for the runs in flight. */
  stop(): Promise<void>;
};

export function startJobs(jobs: readonly Job[], clock: JobClock = realClock): JobRunner {
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const timers = jobs.map((job) => {
    let running = false;
    const tick = () => {
      if (stopped) return;
      if (running) {
        incCounter(JOB_RUNS, "Background job ticks by result", { job: job.name, result: "skipped" });
        return;
      }
      running = true;
      const started = clock.now();
      const done = (async () => {
        let result = "ok";
        try {
          await job.run();
        } catch (err) {
          result = "error";
          log.error("background job failed", { job: job.name, error: errorText(err) });
        }
        observe(JOB_SECONDS, "Background job run time", DURATION_BUCKETS, seconds(clock.now() - started), {
          job: job.name,
        });
        incCounter(JOB_RUNS, "Background job ticks by result", { job: job.name, result });
      })().finally(() => {
        running = false;
        inFlight.delete(done);
      });
      inFlight.add(done);
    };
    if (job.runAtStart) tick();
    return clock.setInterval(tick, job.everyMs);
  });
  return {
    async stop() {
      stopped = true;
      timers.forEach((t) => clock.clearInterval(t));
      await Promise.all([...inFlight]);
    },
  };
}
