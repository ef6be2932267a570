import "server-only";
import { parentPort } from "node:worker_threads";
import { checkAndSign } from "./check-and-sign";
import { CsrError } from "./csr";
import type { FleetCa } from "./fleet-ca";
import type { SigningJob, SigningResult } from "./signing-pool";

// A signing worker thread: CSR checks and certificate signing (node-forge's DER work and the RSA
// operations) off the main thread, which keeps answering heartbeats meanwhile.

// The CAs this worker was sent, by fingerprint: the pool sends each one with its first job here
// (and again if its key changes), so later jobs carry only the fingerprint. A process has a
// handful of CAs in its life (one more per rollover).
const cas = new Map<string, FleetCa>();

function run(job: SigningJob): SigningResult {
  try {
    if (job.ca) cas.set(job.caFingerprint, job.ca);
    const ca = cas.get(job.caFingerprint);
    if (!ca) throw new Error(`signing worker: CA ${job.caFingerprint} was never sent`);
    return { id: job.id, ok: true, value: checkAndSign(ca, job.pem, job.input) };
  } catch (err) {
    return { id: job.id, ok: false, csrError: err instanceof CsrError, message: (err as Error).message ?? String(err) };
  }
}

parentPort!.on("message", (job: SigningJob) => parentPort!.postMessage(run(job)));
parentPort!.postMessage({ ready: true });
