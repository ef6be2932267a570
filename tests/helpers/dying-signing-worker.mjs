// A signing worker that says it is ready and dies on its first job (tests/unit/server/signing-pool.test.ts).
import { parentPort } from "node:worker_threads";

parentPort.on("message", () => process.exit(3));
parentPort.postMessage({ ready: true });
