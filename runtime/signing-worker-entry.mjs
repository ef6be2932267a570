// Entry of a signing worker thread (signing-pool.ts). Plain JavaScript, loaded as a file at run
// time and never bundled: a worker thread does not inherit the main thread's loader hooks, so it
// installs them itself (the "server-only" no-op, then tsx) before it loads the TypeScript.
await import("./register-hooks.mjs");
const { register } = await import("tsx/esm/api");
register();
await import("../lib/server/pki/signing-worker.ts");
