// The restart phase of `npm run bench:soak -- --restart-at S`: the server is stopped with SIGTERM
// while the simulated fleet keeps running, started again on the same ports, database and data
// dir, and the recovery measured: how long until every cluster's heartbeat is answered again,
// NotReady as the console sees it meanwhile (no fault is injected: every one is false), the
// heartbeat errors by code, and what the fleet sent per second in the first 30 s (the wave).
import type { FleetServer } from "../../tests/helpers/fleet-server";
import type { SoakReport } from "./soak-simulator";

export interface RestartProbe {
  server: FleetServer;
  /** Tells the simulator to count the clusters that heartbeat from now on. */
  mark: () => void;
  /** Every report the simulator sends from now on (null: stop). */
  onReport: (listener: ((report: SoakReport) => void) | null) => void;
  latest: () => SoakReport | null;
  /** Clusters the console lists as NotReady now (exact up to its count's cap). */
  countNotReady: () => Promise<number>;
}

export interface RestartOutcome {
  lines: string[];
  /** Goals missed: "restart-recovery", "restart-notReady". */
  missed: string[];
}

const WAVE_SECONDS = 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sum = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

async function notReadyThresholdSeconds(server: FleetServer): Promise<number> {
  const res = await server.api("GET", "/api/v1/settings");
  const value = (res.body as { notReadyThresholdSeconds?: unknown } | null)?.notReadyThresholdSeconds;
  return res.status === 200 && typeof value === "number" ? value : 60;
}

export async function restartAndRecover(p: RestartProbe): Promise<RestartOutcome> {
  const threshold = await notReadyThresholdSeconds(p.server);
  const before = p.latest();
  const hbErrors0 = before?.heartbeatErrors ?? {};
  // The clusters registered when the server stops (a ramp may not have finished) must all return.
  const clusters = before?.registered ?? 0;

  // The wave: what the simulator saw answered per second after the new server was ready.
  const wave = {
    heartbeatsOk: new Array<number>(WAVE_SECONDS).fill(0),
    heartbeatsFailed: new Array<number>(WAVE_SECONDS).fill(0),
    registered: new Array<number>(WAVE_SECONDS).fill(0),
    registrationsRefused: new Array<number>(WAVE_SECONDS).fill(0),
  };
  let readyAt = Infinity;
  let previous = before;
  p.onReport((r) => {
    const second = Math.floor((performance.now() - readyAt) / 1000);
    if (previous && second >= 0 && second < WAVE_SECONDS) {
      wave.heartbeatsOk[second]! += r.latencies.length;
      wave.heartbeatsFailed[second]! += sum(r.heartbeatErrors) - sum(previous.heartbeatErrors);
      wave.registered[second]! += r.registered - previous.registered;
      wave.registrationsRefused[second]! += sum(r.registerErrors) - sum(previous.registerErrors);
    }
    previous = r;
  });

  const t0 = performance.now();
  const stopped = await p.server.kill("SIGTERM");
  // From here on every answered heartbeat comes from the new process.
  p.mark();
  await p.server.restart();
  readyAt = performance.now();

  // Poll until every cluster heartbeated again, the wave's 30 s are over, and a NotReady caused
  // by the gap would have shown (a threshold after the last heartbeats before the stop, plus a
  // margin); give up three thresholds after the stop.
  let recoveredAt: number | null = null;
  let maxNotReady = 0;
  // A new server may answer the console's list 503 while its database pool fills: not a crash.
  const pollFailures: string[] = [];
  const watchUntil = Math.max(readyAt + WAVE_SECONDS * 1000, t0 + (threshold + 15) * 1000);
  const giveUpAt = t0 + threshold * 3000;
  for (;;) {
    await sleep(1000);
    try {
      maxNotReady = Math.max(maxNotReady, await p.countNotReady());
    } catch (err) {
      pollFailures.push(err instanceof Error ? err.message : String(err));
    }
    const since = p.latest()?.heartbeatedSinceMark ?? 0;
    if (recoveredAt === null && since >= clusters) recoveredAt = performance.now();
    const now = performance.now();
    if ((recoveredAt !== null && now >= watchUntil) || now >= giveUpAt) break;
  }
  p.onReport(null);
  const hbErrors = p.latest()?.heartbeatErrors ?? {};
  const errorsDuring: Record<string, number> = {};
  for (const [code, n] of Object.entries(hbErrors))
    if (n - (hbErrors0[code] ?? 0) > 0) errorsDuring[code] = n - (hbErrors0[code] ?? 0);

  const recovery = recoveredAt === null ? null : recoveredAt - t0;
  const missed: string[] = [];
  const unpolled = pollFailures.length ? ` (${pollFailures.length} polls failed, e.g. ${pollFailures[0]})` : "";
  const recoveredOk = recovery !== null && recovery <= threshold * 1000;
  if (!recoveredOk) missed.push("restart-recovery");
  if (maxNotReady > 0) missed.push("restart-notReady");
  const row = (name: string, values: number[]) => `    ${name.padEnd(22)} ${values.join(" ")}`;
  return {
    missed,
    lines: [
      `restart (SIGTERM while the fleet of ${clusters} registered clusters keeps running; the same ports and database):`,
      `  stop ${secs(stopped.ms)} (exit ${stopped.code ?? stopped.signal}), start until ready ${secs(readyAt - t0 - stopped.ms)}`,
      `  every cluster heartbeating again ${recovery === null ? `NOT after ${secs(performance.now() - t0)} (${p.latest()?.heartbeatedSinceMark ?? 0}/${clusters})` : `${secs(recovery)} after SIGTERM (${secs(recovery - (readyAt - t0))} after ready)`}  (goal <= ${threshold}s, the NotReady threshold)  ${recoveredOk ? "ok" : "MISSED"}`,
      `  false NotReady     ${maxNotReady}  (goal 0; max over 1 s polls until ${secs(Math.max(watchUntil, recoveredAt ?? 0) - t0)} after SIGTERM${unpolled})  ${maxNotReady === 0 ? "ok" : "MISSED"}`,
      `  heartbeat errors   ${sum(errorsDuring)} ${Object.entries(errorsDuring)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")}  (from SIGTERM to the end of the watch)`,
      `  per second in the first ${WAVE_SECONDS}s after ready, as the simulator saw them answered:`,
      row("heartbeats ok", wave.heartbeatsOk),
      row("heartbeats failed", wave.heartbeatsFailed),
      row("registrations ok", wave.registered),
      row("registrations refused", wave.registrationsRefused),
    ],
  };
}
