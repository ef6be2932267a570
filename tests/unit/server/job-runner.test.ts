// The background job runner (lib/server/jobs/job-runner.ts) on a fake clock: ticks are fired by
// hand and each run finishes only when the test says so, so an overlap, a run after stop() or an
// escaped error would show.
import assert from "node:assert/strict";
import { test } from "node:test";
import { JOB_RUNS, startJobs, type JobClock } from "@/lib/server/jobs/job-runner";
import { renderOwnMetrics } from "@/lib/server/metrics/registry";
import { setLogLevel } from "@/lib/server/log";

setLogLevel("error");

function fakeClock() {
  const timers = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  let ms = 0;
  const clock: JobClock = {
    setInterval(fn, every) {
      timers.set(next, { fn, ms: every });
      return next++;
    },
    clearInterval(handle) {
      timers.delete(handle as number);
    },
    now: () => ms,
  };
  return {
    clock,
    timers,
    /** Moves time on and fires every interval once. */
    tick(byMs = 1000) {
      ms += byMs;
      for (const t of [...timers.values()]) t.fn();
    },
  };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function metric(line: string): Promise<number> {
  const found = (await renderOwnMetrics()).find((l) => l.startsWith(line + " "));
  return found ? Number(found.slice(line.length + 1)) : 0;
}

test("a tick that finds the previous run still going is skipped, and counted", async () => {
  const { clock, tick } = fakeClock();
  const runs: ReturnType<typeof deferred>[] = [];
  const runner = startJobs(
    [{ name: "slow-job", everyMs: 1000, run: () => (runs.push(deferred()), runs.at(-1)!.promise) }],
    clock,
  );
  tick();
  tick();
  tick();
  assert.equal(runs.length, 1, "one run at a time");
  assert.equal(await metric(`${JOB_RUNS}{job="slow-job",result="skipped"}`), 2);
  runs[0]!.resolve();
  await settle();
  tick();
  assert.equal(runs.length, 2, "the next tick after a run finished starts a new one");
  runs[1]!.resolve();
  await runner.stop();
  assert.equal(await metric(`${JOB_RUNS}{job="slow-job",result="ok"}`), 2);
  assert.ok((await renderOwnMetrics()).includes('fleet_job_duration_seconds_count{job="slow-job"} 2'));
});

test("an error is logged and counted, never thrown, and the job keeps running", async () => {
  const { clock, tick } = fakeClock();
  let calls = 0;
  const runner = startJobs(
    [
      {
        name: "failing-job",
        everyMs: 1000,
        run: () => {
          calls++;
          if (calls === 1) throw new Error("synchronous failure");
          return Promise.reject(new Error("asynchronous failure"));
        },
      },
    ],
    clock,
  );
  tick();
  await settle();
  tick();
  await settle();
  await runner.stop();
  assert.equal(calls, 2);
  assert.equal(await metric(`${JOB_RUNS}{job="failing-job",result="error"}`), 2);
});

test("stop() clears every timer, waits for runs in flight, and later ticks do nothing", async () => {
  const { clock, tick, timers } = fakeClock();
  const run = deferred();
  let started = 0;
  let finished = false;
  const runner = startJobs(
    [
      {
        name: "stoppable-job",
        everyMs: 500,
        runAtStart: true,
        run: async () => {
          started++;
          await run.promise;
          finished = true;
        },
      },
      { name: "other-job", everyMs: 60_000, run: () => started++ },
    ],
    clock,
  );
  assert.equal(started, 1, "runAtStart runs at once");
  assert.equal(timers.size, 2);
  let stopped = false;
  const stopping = runner.stop().then(() => (stopped = true));
  assert.equal(timers.size, 0, "every timer is cleared");
  await settle();
  assert.equal(stopped, false, "stop waits for the run in flight");
  run.resolve();
  await stopping;
  assert.ok(finished);
  tick();
  assert.equal(started, 1);
});
