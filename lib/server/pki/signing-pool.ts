import "server-only";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";
import { processSingleton } from "@/lib/server/process-singletons";
import { issueClientCertificate, type IssuedClientCertificate } from "./client-certificate";
import { CsrError, validateCsr, type ValidatedCsr } from "./csr";
import type { FleetCa } from "./fleet-ca";

/**
 * CSR checks and client-certificate signing in worker threads (node:worker_threads), so a
 * registration wave uses the second core and leaves the main thread to heartbeats. The custom
 * server starts the pool (startSigningPool); anywhere it was not started (tests calling services
 * in-process, CLIs), or when its workers cannot run, the same functions run on the calling thread.
 */

type IssueInput = Parameters<typeof issueClientCertificate>[1];
type Job = { kind: "checkCsr"; pem: string } | { kind: "issue"; ca: FleetCa; input: IssueInput };
export type SigningJob = { id: number } & Job;
export type SigningResult =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; csrError: boolean; message: string };
type Pending = { job: SigningJob; resolve: (value: unknown) => void; reject: (err: Error) => void };
type PoolWorker = { worker: Worker; ready: boolean; pending: Map<number, Pending> };

const pool = processSingleton<{ workers: PoolWorker[]; nextId: number }>("signing-pool", () => ({ workers: [], nextId: 1 }));

const countJob = (where: "worker" | "main") =>
  incCounter("fleet_signing_jobs_total", "CSR checks and certificate signatures on this instance, by thread.", { where });

/**
 * Starts the workers: one per core but one (the main thread keeps a core for heartbeats and the
 * database), at least one. Until a worker is ready, and if none can start, jobs run in-thread.
 * `entry` is signing-worker-entry.mjs, a plain file loaded at run time: the custom server (not
 * bundled) names it, because Next's bundler would try to bundle a worker this module named.
 */
export function startSigningPool(entry: URL, size = Math.max(1, availableParallelism() - 1)): void {
  if (pool.workers.length) return;
  if (entry.protocol !== "file:" || !existsSync(fileURLToPath(entry))) {
    log.warn("signing workers unavailable (worker file not found); signing on the main thread", { entry: entry.href });
    return;
  }
  for (let i = 0; i < size; i++) {
    let worker: Worker;
    try {
      worker = new Worker(entry);
    } catch (err) {
      log.warn("signing worker could not start; signing on the main thread", { error: String(err) });
      continue;
    }
    const w: PoolWorker = { worker, ready: false, pending: new Map() };
    // An idle worker never keeps the process alive (shutting down is the server's decision); one
    // with jobs does, or a caller without sockets (a test, a CLI) would end with its job pending.
    worker.unref();
    worker.on("message", (msg: SigningResult | { ready: true }) => {
      if ("ready" in msg) return void (w.ready = true);
      const p = w.pending.get(msg.id);
      if (!p) return;
      w.pending.delete(msg.id);
      if (w.pending.size === 0) worker.unref();
      if (msg.ok) p.resolve(msg.value);
      else p.reject(msg.csrError ? new CsrError(msg.message) : new Error(msg.message));
    });
    const lost = (reason: string) => {
      if (!pool.workers.includes(w)) return;
      pool.workers.splice(pool.workers.indexOf(w), 1);
      log.warn("signing worker stopped; its jobs run on the main thread", { reason, workersLeft: pool.workers.length });
      // Nothing it held is lost: each job is redone here.
      for (const p of w.pending.values()) runInThread(p.job).then(p.resolve, p.reject);
      w.pending.clear();
    };
    worker.on("error", (err) => lost(String(err)));
    worker.on("exit", (code) => lost(`exit ${code}`));
    pool.workers.push(w);
  }
}

/** Stops the workers (shutdown, tests); later jobs run in-thread. */
export async function stopSigningPool(): Promise<void> {
  const workers = pool.workers.splice(0);
  for (const w of workers) for (const p of w.pending.values()) runInThread(p.job).then(p.resolve, p.reject);
  await Promise.all(workers.map((w) => w.worker.terminate()));
}

async function runInThread(job: SigningJob): Promise<unknown> {
  countJob("main");
  return job.kind === "checkCsr" ? validateCsr(job.pem) : issueClientCertificate(job.ca, job.input);
}

function submit(job: Job): Promise<unknown> {
  // The least busy ready worker; none ready (starting, or all gone): this thread.
  let best: PoolWorker | undefined;
  for (const w of pool.workers) if (w.ready && (!best || w.pending.size < best.pending.size)) best = w;
  const full: SigningJob = { ...job, id: pool.nextId++ };
  if (!best) return runInThread(full);
  const target = best;
  countJob("worker");
  return new Promise((resolve, reject) => {
    if (target.pending.size === 0) target.worker.ref();
    target.pending.set(full.id, { job: full, resolve, reject });
    target.worker.postMessage(full);
  });
}

/** validateCsr (csr.ts) on a worker: throws CsrError for a CSR we refuse. */
export function checkCsr(pem: string): Promise<ValidatedCsr> {
  return submit({ kind: "checkCsr", pem }) as Promise<ValidatedCsr>;
}

/** issueClientCertificate (client-certificate.ts) on a worker. */
export function signClientCertificate(ca: FleetCa, input: IssueInput): Promise<IssuedClientCertificate> {
  return submit({ kind: "issue", ca, input }) as Promise<IssuedClientCertificate>;
}
