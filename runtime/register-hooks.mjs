// Loaded with `node --import ./runtime/register-hooks.mjs` (or via tsx) for code that runs
// outside the Next.js bundle: the custom server, tests and CLIs. "server-only" throws unless
// the bundler resolves it for the server; here every module is server-side, so it is a no-op.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        if (specifier === "server-only") return { url: "data:text/javascript,", shortCircuit: true };
        return next(specifier, context);
      }`),
  import.meta.url,
);
