import "server-only";
import { parentPort } from "node:worker_threads";
import { issueClientCertificate } from "./client-certificate";
import { CsrError, validateCsr } from "./csr";
import type { SigningJob, SigningResult } from "./signing-pool";

// A signing worker thread: CSR checks and certificate signing (node-forge's DER work and the RSA
// operations) off the main thread, which keeps answering heartbeats meanwhile.
function run(job: SigningJob): SigningResult {
  try {
    const value = job.kind === "checkCsr" ? validateCsr(job.pem) : issueClientCertificate(job.ca, job.input);
    return { id: job.id, ok: true, value };
  } catch (err) {
    return { id: job.id, ok: false, csrError: err instanceof CsrError, message: (err as Error).message ?? String(err) };
  }
}

parentPort!.on("message", (job: SigningJob) => parentPort!.postMessage(run(job)));
parentPort!.postMessage({ ready: true });
