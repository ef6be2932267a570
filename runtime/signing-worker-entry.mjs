// Entry of a signing worker thread (signing-pool.ts) where the server runs under tsx (`npm run dev`,
// the unit tests); the compiled server (`npm run build`) starts its own signing-worker.mjs. A
// worker thread does not inherit the main thread's loader hooks, so this installs them itself (the
// "server-only" no-op, then tsx) before it loads the TypeScript.
await import("./register-hooks.mjs");
const { register } = await import("tsx/esm/api");
register();
await import("../lib/server/pki/signing-worker.ts");
