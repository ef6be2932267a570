// npm run build:agent: the agent (lib/agent/cli.ts and what it imports, nothing of the console)
// as one ES module, dist/agent/agent.mjs, for Dockerfile.agent. @kubernetes/client-node and its
// dependencies are bundled in; Node's own modules are not.
//
// The agent's version is baked in (lib/agent/version.ts): AGENT_VERSION when set (Dockerfile.agent's
// build argument, so the release pipeline tags and versions an image with one value), else
// package.json's "agentVersion" (the agent has its own release line, apart from the control plane's
// "version").
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const version =
  process.env.AGENT_VERSION || JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).agentVersion;
if (!/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version ?? "")) {
  console.error(`build-agent: the agent version "${version}" is not a semantic version like 1.5.0`);
  process.exit(1);
}

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
  define: { FLEET_AGENT_VERSION: JSON.stringify(version) },
  legalComments: "none",
  logLevel: "warning",
});
console.log(`wrote ${outfile} (agent ${version})`);
