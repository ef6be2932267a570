// This build's own versions, from package.json: the control plane's ("version") and the agent's
// ("agentVersion", its own release line; lib/agent/version.ts and scripts/build-agent.mjs read
// the same field). Server-side and tests only: the console learns them from the API, so the
// browser bundle does not carry package.json.
import pkg from "../package.json";

export const BUILD_VERSION: string = pkg.version;
export const BUILD_AGENT_VERSION: string = pkg.agentVersion;
