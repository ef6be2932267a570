// Which agent image the console's manifests and upgrade rollouts name, and whether a person has
// to do something about it. The shipped default names a repository nobody publishes: a manifest
// built from it cannot pull, so the console says so (Tokens, Versions) rather than letting a
// cluster find out.

import { agentImageFor } from "./agent-manifest";

/** The repository the unset default names; no registry serves it (build and push your own). */
export const PLACEHOLDER_AGENT_REPOSITORY = "fleet-registry/agent";

/** A documentation host (RFC 2606): a reference copied from an example, not a registry. */
const EXAMPLE_HOST = /^(?:[^/]*\.)?example(?:\.(?:com|org|net))?(?::\d+)?\//i;

function hasTagOrDigest(image: string): boolean {
  if (/@sha256:[0-9a-f]+$/.test(image)) return true;
  const slash = image.lastIndexOf("/");
  return image.lastIndexOf(":") > slash;
}

/**
 * The image manifests use: AGENT_IMAGE as configured, tagged with this build's agent version when
 * it names no tag; unset, the placeholder repository at this build's agent version.
 */
export function effectiveAgentImage(configured: string | undefined, buildAgentVersion: string): string {
  if (!configured) return `${PLACEHOLDER_AGENT_REPOSITORY}:${buildAgentVersion}`;
  return hasTagOrDigest(configured) ? configured : agentImageFor(configured, buildAgentVersion);
}

/** Why the agent image needs an admin's attention, with what to set; null when it does not. */
export function agentImageWarning(configured: string | undefined, buildAgentVersion: string): string | null {
  const example = `registry.your-company.com/fleet/agent:${buildAgentVersion}`;
  const how = `Build the agent image (Dockerfile.agent), push it to your registry and set AGENT_IMAGE to its reference, e.g. ${example}, then restart.`;
  if (!configured)
    return `AGENT_IMAGE is not set: manifests and upgrades use ${effectiveAgentImage(undefined, buildAgentVersion)}, which no registry serves. ${how}`;
  const repository = configured.replace(/@sha256:[0-9a-f]+$/, "").replace(/:[^:/]+$/, "");
  if (repository === PLACEHOLDER_AGENT_REPOSITORY || repository === `docker.io/${PLACEHOLDER_AGENT_REPOSITORY}`)
    return `AGENT_IMAGE is ${configured}, the shipped placeholder that no registry serves. ${how}`;
  if (EXAMPLE_HOST.test(configured)) return `AGENT_IMAGE is ${configured}, an example address, not a registry. ${how}`;
  return null;
}
