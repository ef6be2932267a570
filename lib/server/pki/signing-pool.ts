import "server-only";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";
import { processSingleton } from "@/lib/server/process-singletons";
import { checkAndSign, type CheckedAndSigned, type SignInput } from "./check-and-sign";
import { CsrError } from "./csr";
import type { FleetCa } from "./fleet-ca";

/**
 * CSR checks and client-certificate signing in worker threads (node:worker_threads), so a
 * registration wave uses the second core and leaves the main thread to heartbeats. The custom
 * server starts the pool (startSigningPool); anywhere it was not started (tests calling services
 * in-process, CLIs), or when its workers cannot run, the same functions run on the calling thread.
 */

/**
 * A job names its CA by fingerprint; the CA itself (keys and certificate, ~5 KB to copy) travels
 * only with a worker's first job for it, and the worker keeps it (signing-worker.ts).
 */
export type SigningJob = { id: number; pem: string; caFingerprint: string; ca?: FleetCa; input: SignInput };
export type { CheckedAndSigned };
export type SigningResult =
  { id: number; ok: true; value: CheckedAndSigned } | { id: number; ok: false; csrError: boolean; message: string };
type Pending = { job: SigningJob; ca: FleetCa; resolve: (value: CheckedAndSigned) => void; reject: (err: Error) => void };
/** `cas`: fingerprint -> key PEM of every CA this worker has been sent (a resealed key is sent again). */
type PoolWorker = { worker: Worker; ready: boolean; pending: Map<number, Pending>; cas: Map<string, string> };

type Pool = {
  workers: PoolWorker[];
  nextId: number;
  /** Where workers come from and how many to keep while there is work (0: no pool). */
  entry?: URL;
  size: number;
  /** Idle workers are retired after this long (0: never) and started again by the next job. */
  idleMs: number;
  idleTimer?: ReturnType<typeof setTimeout>;
};
const pool = processSingleton<Pool>("signing-pool", () => ({ workers: [], nextId: 1, size: 0, idleMs: 0 }));

const countJob = (where: "worker" | "main") =>
  incCounter("fleet_signing_jobs_total", "CSR checks and certificate signatures on this instance, by thread.", { where });

/**
 * Starts the workers: one per core but one (the main thread keeps a core for heartbeats and the
 * database), at least one. Until a worker is ready, and if none can start, jobs run in-thread.
 * `entry` is signing-worker-entry.mjs, a plain file loaded at run time: the custom server (not
 * bundled) names it, because Next's bundler would try to bundle a worker this module named.
 * `idleMs`: a pool with no job for that long stops its workers (each holds a V8 heap of ~50 MB
 * that a fleet between registration waves has no use for); the next job starts them again and
 * runs in-thread until they are ready.
 */
export function startSigningPool(entry: URL, size = Math.max(1, availableParallelism() - 1), idleMs = 0): void {
  if (pool.workers.length) return;
  if (entry.protocol !== "file:" || !existsSync(fileURLToPath(entry))) {
    log.warn("signing workers unavailable (worker file not found); signing on the main thread", { entry: entry.href });
    return;
  }
  Object.assign(pool, { entry, size, idleMs });
  spawnWorkers();
}

function spawnWorkers(): void {
  const entry = pool.entry;
  if (!entry) return;
  while (pool.workers.length < pool.size) {
    let worker: Worker;
    try {
      worker = new Worker(entry);
    } catch (err) {
      log.warn("signing worker could not start; signing on the main thread", { error: String(err) });
      pool.size--;
      continue;
    }
    const w: PoolWorker = { worker, ready: false, pending: new Map(), cas: new Map() };
    // An idle worker never keeps the process alive (shutting down is the server's decision); one
    // with jobs does, or a caller without sockets (a test, a CLI) would end with its job pending.
    worker.unref();
    worker.on("message", (msg: SigningResult | { ready: true }) => {
      if ("ready" in msg) return void (w.ready = true);
      const p = w.pending.get(msg.id);
      if (!p) return;
      w.pending.delete(msg.id);
      if (w.pending.size === 0) {
        worker.unref();
        retireWhenIdle();
      }
      if (msg.ok) p.resolve(msg.value);
      else p.reject(msg.csrError ? new CsrError(msg.message) : new Error(msg.message));
    });
    const lost = (reason: string) => {
      if (!pool.workers.includes(w)) return;
      pool.workers.splice(pool.workers.indexOf(w), 1);
      // A worker that failed is not replaced (no crash loop); its jobs are redone here.
      pool.size--;
      log.warn("signing worker stopped; its jobs run on the main thread", { reason, workersLeft: pool.workers.length });
      for (const p of w.pending.values()) runInThread(p.ca, p.job).then(p.resolve, p.reject);
      w.pending.clear();
    };
    worker.on("error", (err) => lost(String(err)));
    worker.on("exit", (code) => lost(`exit ${code}`));
    pool.workers.push(w);
  }
}

/** (Re)arms the idle timer once no worker has a job. */
function retireWhenIdle(): void {
  if (!pool.idleMs || pool.workers.some((w) => w.pending.size)) return;
  clearTimeout(pool.idleTimer);
  pool.idleTimer = setTimeout(() => {
    if (pool.workers.some((w) => w.pending.size)) return;
    for (const w of pool.workers.splice(0)) void w.worker.terminate();
  }, pool.idleMs);
  pool.idleTimer.unref();
}

/** For tests and metrics: workers running now and how many the pool keeps while busy. */
export function signingPoolSize(): { running: number; size: number } {
  return { running: pool.workers.length, size: pool.size };
}

/** Stops the workers (shutdown, tests); later jobs run in-thread. */
export async function stopSigningPool(): Promise<void> {
  clearTimeout(pool.idleTimer);
  Object.assign(pool, { entry: undefined, size: 0, idleMs: 0 });
  const workers = pool.workers.splice(0);
  for (const w of workers) for (const p of w.pending.values()) runInThread(p.ca, p.job).then(p.resolve, p.reject);
  await Promise.all(workers.map((w) => w.worker.terminate()));
}

async function runInThread(ca: FleetCa, job: SigningJob): Promise<CheckedAndSigned> {
  countJob("main");
  return checkAndSign(ca, job.pem, job.input);
}

/**
 * validateCsr (csr.ts), then issueClientCertificate (client-certificate.ts) for the CSR's key, on
 * a worker: throws CsrError for a CSR we refuse. The certificate is signed before the caller
 * decides whether to hand it out (a refused re-registration drops it unused): one message each
 * way costs less than the two round trips of checking and signing apart.
 */
export function checkCsrAndSign(ca: FleetCa, pem: string, input: SignInput): Promise<CheckedAndSigned> {
  if (pool.workers.length < pool.size) spawnWorkers(); // retired while idle: wanted again
  clearTimeout(pool.idleTimer);
  // The least busy ready worker; none ready (starting, or all gone): this thread.
  let best: PoolWorker | undefined;
  for (const w of pool.workers) if (w.ready && (!best || w.pending.size < best.pending.size)) best = w;
  const job: SigningJob = { id: pool.nextId++, pem, caFingerprint: ca.fingerprint, input };
  if (!best) return runInThread(ca, job);
  const target = best;
  if (target.cas.get(ca.fingerprint) !== ca.keyPem) {
    job.ca = ca;
    target.cas.set(ca.fingerprint, ca.keyPem);
  }
  countJob("worker");
  return new Promise((resolve, reject) => {
    if (target.pending.size === 0) target.worker.ref();
    target.pending.set(job.id, { job, ca, resolve, reject });
    target.worker.postMessage(job);
  });
}
