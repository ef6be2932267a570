import "server-only";
import cluster, { type Worker } from "node:cluster";
// First: the singletons must be there when a module in a cycle with this one names an operation.
import { processSingleton } from "@/lib/server/process-singletons";
import { env } from "@/lib/env";
import { ApiError, errorReply, knownError, type ErrorCode } from "@/lib/server/api/errors";

// Calls from an agent-port worker process (agent-workers.ts) to the primary, the process with the
// console and the jobs, over the IPC channel node:cluster opens: a call and its answer matched by
// id, in the advanced serialization (structured clone: Dates cross as Dates). An operation is
// named once, where it is defined (onPrimary); the primary answers with that same function.

type Fn = (...args: never[]) => Promise<unknown>;
type CallMessage = { kind: "fleet-call"; id: number; name: string; args: unknown[] };
type Failure = { code: ErrorCode; message: string; details?: unknown; headers?: Record<string, string> };
type SharedMessage = { kind: "fleet-shared"; name: string; args: unknown[] };
type AnswerMessage = { kind: "fleet-answer"; id: number } & ({ ok: true; value: unknown } | { ok: false; error: Failure });

// A declaration, not a const: modules in an import cycle with this one name operations while it loads.
function state() {
  return processSingleton("primary-calls", () => ({
    operations: new Map<string, Fn>(),
    waiting: new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>(),
    nextId: 1,
    shared: new Map<string, (...args: unknown[]) => void>(),
  }));
}

/** Whether this process is an agent-port worker (forked by the primary's startAgentWorkers). */
export function isAgentWorker(): boolean {
  return cluster.isWorker;
}

/**
 * Whether this worker hands its database writes to the primary: with SQLite one process writes
 * the file, never two contending for it; with PostgreSQL every worker writes, as an instance does.
 */
export function writesThroughPrimary(): boolean {
  return cluster.isWorker && env().database.dialect === "sqlite";
}

/**
 * `fn`, named so a worker can have the primary run it. In the primary (and a process without
 * workers) the returned function is `fn`; in a worker it asks the primary, always (`where:
 * "primary"`) or only when writes go through the primary (`"writer"`, SQLite).
 */
export function onPrimary<A extends unknown[], R>(
  name: string,
  fn: (...args: A) => Promise<R>,
  where: "primary" | "writer" = "writer",
): (...args: A) => Promise<R> {
  state().operations.set(name, fn as unknown as Fn);
  return (...args: A) =>
    (where === "primary" ? isAgentWorker() : writesThroughPrimary()) ? (callPrimary(name, args) as Promise<R>) : fn(...args);
}

function callPrimary(name: string, args: unknown[]): Promise<unknown> {
  const s = state();
  const id = s.nextId++;
  return new Promise((resolve, reject) => {
    s.waiting.set(id, { resolve, reject });
    const message: CallMessage = { kind: "fleet-call", id, name, args };
    process.send!(message, undefined, undefined, (err) => {
      if (!err) return;
      s.waiting.delete(id);
      // The primary is gone (stopping): the request fails like a database outage would.
      reject(new ApiError("unavailable", "The server is restarting; retry shortly."));
    });
  });
}

/**
 * `fn`, applied here and in every other process of this instance (the primary and its workers):
 * a process-local cache evicted everywhere at once, e.g. a revoked certificate, instead of at
 * the others' next poll of the database.
 */
export function everywhere<A extends unknown[]>(name: string, fn: (...args: A) => void): (...args: A) => void {
  state().shared.set(name, fn as unknown as (...args: unknown[]) => void);
  return (...args: A) => {
    fn(...args);
    const message: SharedMessage = { kind: "fleet-shared", name, args };
    if (isAgentWorker()) process.send?.(message);
    else for (const w of Object.values(cluster.workers ?? {})) if (w?.isConnected()) w.send(message);
  };
}

/** Applies a shared call locally; the primary also relays a worker's to the other workers. */
export function applyShared(message: unknown, from?: Worker): boolean {
  const m = message as SharedMessage;
  if (m?.kind !== "fleet-shared") return false;
  state().shared.get(m.name)?.(...m.args);
  if (from) for (const w of Object.values(cluster.workers ?? {})) if (w && w !== from && w.isConnected()) w.send(m);
  return true;
}

/** In a worker: hears the primary's answers and shared calls (agent-worker.ts, at start). */
export function listenToPrimary() {
  const s = state();
  process.on("message", (m: AnswerMessage) => {
    if (applyShared(m) || m?.kind !== "fleet-answer") return;
    const waiter = s.waiting.get(m.id);
    if (!waiter) return;
    s.waiting.delete(m.id);
    if (m.ok) waiter.resolve(m.value);
    else waiter.reject(new ApiError(m.error.code, m.error.message, m.error.details, m.error.headers));
  });
}

/** The primary's side: runs a worker's call and sends the answer back (nothing when the worker is gone). */
export async function answerCall(message: unknown, reply: (answer: AnswerMessage) => void): Promise<boolean> {
  const m = message as CallMessage;
  if (m?.kind !== "fleet-call") return false;
  const fn = state().operations.get(m.name);
  try {
    if (!fn) throw new Error(`no operation named ${m.name} in the primary`);
    reply({ kind: "fleet-answer", id: m.id, ok: true, value: await (fn as (...a: unknown[]) => Promise<unknown>)(...m.args) });
  } catch (err) {
    // A database fault crosses as its 503; anything else as the 500 it would be answered with (logged here).
    const known = knownError(err);
    const error: Failure =
      known instanceof ApiError
        ? { code: known.code, message: known.message, details: known.details, headers: known.headers }
        : { code: "internal", message: errorReply(err).body.message };
    reply({ kind: "fleet-answer", id: m.id, ok: false, error });
  }
  return true;
}
