// The signing worker pool (lib/server/pki/signing-pool.ts): the same answers on a worker thread as
// in-thread (a refused CSR stays a CsrError across the thread boundary), one job per CSR checked and
// signed, each CA sent to a worker once and still used for its own jobs, and a pool that cannot
// start falls back to in-thread signing. Worker threads only, no processes or sockets; bounded by
// the test timeout (a worker starts in about a second). A worker that dies hands its jobs back.
import assert from "node:assert/strict";
import { createPublicKey, X509Certificate } from "node:crypto";
import { after, test } from "node:test";
import { makeCsr } from "../../helpers/csr";
import { loadOrCreateFleetCa } from "@/lib/server/pki/fleet-ca";
import { CsrError } from "@/lib/server/pki/csr";
import { checkCsrAndSign, signingPoolSize, startSigningPool, stopSigningPool } from "@/lib/server/pki/signing-pool";
import { renderOwnMetrics } from "@/lib/server/metrics/registry";
import { setLogLevel } from "@/lib/server/log";

setLogLevel("error");
const ENTRY = new URL("../../../runtime/signing-worker-entry.mjs", import.meta.url);

after(() => stopSigningPool());

async function memoryCa() {
  const store = new Map<string, string>();
  return loadOrCreateFleetCa({
    get: async (n) => store.get(n) ?? null,
    create: async (n, v) => (store.has(n) ? false : (store.set(n, v), true)),
  });
}

const jobs = async (where: string) =>
  Number(
    new RegExp(`^fleet_signing_jobs_total\\{where="${where}"\\} (\\d+)`, "m").exec((await renderOwnMetrics()).join("\n"))?.[1] ??
      0,
  );

const sameKey = (a: string, b: string) =>
  createPublicKey(a)
    .export({ type: "spki", format: "der" })
    .equals(createPublicKey(b).export({ type: "spki", format: "der" }));

/** Two jobs: one CSR checked and signed, one refused. */
async function signsAndRefuses(ca?: Awaited<ReturnType<typeof memoryCa>>) {
  ca ??= await memoryCa();
  const { csr, key } = makeCsr();
  const { csr: checked, cert } = await checkCsrAndSign(ca, csr, { clusterId: "cl_pool", validityDays: 30 });
  assert.ok(sameKey(checked.publicKeyPem, key), "the CSR's key is reported");
  const x509 = new X509Certificate(cert.pem);
  assert.equal(x509.subject, "CN=cl_pool");
  assert.ok(x509.checkIssued(new X509Certificate(ca.certPem)));
  assert.ok(sameKey(x509.publicKey.export({ type: "spki", format: "pem" }).toString(), key), "and it is the key certified");
  assert.ok(cert.notAfter instanceof Date, "dates survive the thread boundary");
  await assert.rejects(
    checkCsrAndSign(ca, "not a csr", { clusterId: "cl_pool", validityDays: 30 }),
    (err: unknown) => err instanceof CsrError && /PEM block/.test(err.message),
  );
}

test("without a pool, jobs run in-thread", async () => {
  const before = await jobs("main");
  await signsAndRefuses();
  assert.equal((await jobs("main")) - before, 2);
});

test("a pool whose worker file is missing falls back to in-thread signing", async () => {
  startSigningPool(new URL("./no-such-worker.mjs", ENTRY));
  const before = await jobs("main");
  await signsAndRefuses();
  assert.equal((await jobs("main")) - before, 2);
});

test("a job whose worker dies is redone in-thread, and later jobs run in-thread", async () => {
  startSigningPool(new URL("../../helpers/dying-signing-worker.mjs", import.meta.url), 1);
  const deadline = Date.now() + 30_000;
  const [worker, main] = [await jobs("worker"), await jobs("main")];
  // Until the worker is ready jobs run in-thread; the first one it takes kills it.
  while ((await jobs("worker")) === worker && Date.now() < deadline) {
    const ca = await memoryCa();
    assert.match((await checkCsrAndSign(ca, makeCsr().csr, { clusterId: "cl_x", validityDays: 1 })).cert.pem, /CERTIFICATE/);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal((await jobs("worker")) - worker, 1, "one job reached the worker");
  assert.ok((await jobs("main")) - main >= 1, "and was redone here");
  const before = await jobs("main");
  await signsAndRefuses();
  assert.equal((await jobs("main")) - before, 2);
});

test("with the pool started, jobs run on a worker with the same results", async () => {
  startSigningPool(ENTRY, 1);
  // Until a worker is ready jobs run in-thread; wait for it (a few seconds at most).
  const deadline = Date.now() + 30_000;
  let before = await jobs("worker");
  while (Date.now() < deadline) {
    await checkCsrAndSign(await memoryCa(), makeCsr().csr, { clusterId: "cl_x", validityDays: 1 });
    if ((await jobs("worker")) > before) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  before = await jobs("worker");
  await signsAndRefuses();
  assert.equal((await jobs("worker")) - before, 2);
});

test("a worker keeps each CA it was sent and signs every job with the CA the job names", async () => {
  // The pool from the test above: one ready worker. Two CAs, alternating, each sent once.
  const [a, b] = [await memoryCa(), await memoryCa()];
  const before = await jobs("worker");
  for (const ca of [a, b, a, b, a]) {
    const { cert } = await checkCsrAndSign(ca, makeCsr().csr, { clusterId: "cl_two", validityDays: 1 });
    const x509 = new X509Certificate(cert.pem);
    assert.ok(x509.verify(new X509Certificate(ca.certPem).publicKey), "signed by the CA the job named");
    assert.ok(!x509.verify(new X509Certificate((ca === a ? b : a).certPem).publicKey));
  }
  assert.equal((await jobs("worker")) - before, 5);
});

/** Signs until a job has run on a worker (workers start in-thread-first, ready in a second or so). */
async function untilAWorkerSigns() {
  const deadline = Date.now() + 30_000;
  const before = await jobs("worker");
  while ((await jobs("worker")) === before && Date.now() < deadline) {
    await checkCsrAndSign(await memoryCa(), makeCsr().csr, { clusterId: "cl_idle", validityDays: 1 });
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok((await jobs("worker")) > before, "a worker took a job");
}

test("an idle pool retires its workers and the next job starts them again", async () => {
  await stopSigningPool();
  startSigningPool(ENTRY, 1, 300);
  await untilAWorkerSigns();
  assert.deepEqual(signingPoolSize(), { running: 1, size: 1 });
  const deadline = Date.now() + 10_000;
  while (signingPoolSize().running && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(signingPoolSize(), { running: 0, size: 1 }, "retired after 300 ms without a job");
  // Wanted again: the job that finds no worker runs here and starts one; later ones use it.
  const before = await jobs("main");
  await checkCsrAndSign(await memoryCa(), makeCsr().csr, { clusterId: "cl_idle", validityDays: 1 });
  assert.equal((await jobs("main")) - before, 1);
  assert.equal(signingPoolSize().running, 1);
  await untilAWorkerSigns();
});
