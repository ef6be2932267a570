// The product's own process, compiled: server.ts, agent-worker.ts and the signing worker thread as
// ES modules in <distDir>/fleet/ (beside Next's build, so one build is one folder and NEXT_DIST_DIR
// moves both). `npm run build` runs it after `next build`; production runs these files with plain
// Node. Run through tsx instead, every process (and every signing thread) carried tsx's loader
// thread, its esbuild service and the source maps it switches on for the whole process: ~40 MB per
// process for nothing a production server needs (docs/capacity.md, "Memory at start").
//
// Our code (lib/, the entries, Prisma's generated client) is bundled; packages stay in node_modules
// and are imported from there as at development time. `npm run dev` and the tests still run the
// TypeScript through tsx.
import path from "node:path";
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const distDir = process.env.NEXT_DIST_DIR || ".next";
const outdir = path.join(distDir, "fleet");
const { agentVersion } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/** "server-only" throws unless a bundler resolves it for the server: everything here is server-side. */
const serverOnly = {
  name: "server-only",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty" }));
    b.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
  },
};

await build({
  entryPoints: {
    server: "server.ts",
    "agent-worker": "agent-worker.ts",
    "signing-worker": "lib/server/pki/signing-worker.ts",
  },
  outdir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  packages: "external",
  platform: "node",
  target: "node20",
  format: "esm",
  plugins: [serverOnly],
  // The entries find each other (server.ts starts the workers) by these names in this folder.
  define: { FLEET_COMPILED_SERVER: "true", FLEET_AGENT_VERSION: JSON.stringify(agentVersion) },
  // Stack traces keep our function names; no source maps (tsx's turned on Node's for every module).
  keepNames: true,
  legalComments: "none",
  logLevel: "warning",
});
console.log(`wrote ${outdir}/{server,agent-worker,signing-worker}.mjs`);
