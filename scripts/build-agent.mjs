// npm run build:agent: the agent (lib/agent/cli.ts and what it imports, nothing of the console)
// as one ES module, dist/agent/agent.mjs, for Dockerfile.agent. @kubernetes/client-node and its
// dependencies are bundled in; Node's own modules are not.
import { build } from "esbuild";

const outfile = process.argv[2] ?? "dist/agent/agent.mjs";
await build({
  entryPoints: ["lib/agent/cli.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  outfile,
  // CommonJS dependencies bundled into an ES module still call require() for Node's modules.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
});
console.log(`wrote ${outfile}`);
