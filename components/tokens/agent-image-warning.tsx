"use client";

import { useFleetFacts } from "@/lib/client/tokens";

/**
 * Says so when the agent image the manifests name cannot be pulled (AGENT_IMAGE unset or a
 * placeholder), with what to set. Nothing while the facts load or when the image is configured.
 */
export function AgentImageWarning() {
  const fleet = useFleetFacts();
  const warning = fleet.data?.agentImageWarning;
  if (!warning) return null;
  return (
    <div
      role="status"
      data-testid="agent-image-warning"
      className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200"
    >
      <p className="font-semibold">Agents cannot pull the image their manifests name</p>
      <p className="mt-1 break-words">{warning}</p>
    </div>
  );
}
