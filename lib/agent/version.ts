import { readFileSync } from "node:fs";

// This agent's own version, what it reports to the fleet. scripts/build-agent.mjs bakes it into
// the bundle (esbuild `define`): the image build's AGENT_VERSION argument, else package.json's
// "agentVersion", so an image built for a release reports that release without anyone editing a
// constant. Run from a checkout (tsx), it is package.json's.

declare const FLEET_AGENT_VERSION: string | undefined;

export const AGENT_VERSION: string =
  typeof FLEET_AGENT_VERSION === "string"
    ? FLEET_AGENT_VERSION
    : (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { agentVersion: string }).agentVersion;
