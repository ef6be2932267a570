import "server-only";
import type { FleetFacts } from "@/lib/contracts/tokens";
import { agentUrlFor } from "@/lib/domain/agent-manifest";
import { env } from "@/lib/env";
import { caState } from "@/lib/server/pki/current-ca";
import { getSettings } from "@/lib/server/settings/settings";

/** What the console needs to tell an agent where and whom to trust: public facts only. */
export async function fleetFacts(): Promise<FleetFacts> {
  const [cas, settings] = await Promise.all([caState(), getSettings()]);
  // Agents pin the CA of the agent port's server certificate (the outgoing one during a rollover).
  const ca = cas.serving;
  const agentUrls = env().AGENT_HOSTNAMES.map((host) => agentUrlFor(host, env().AGENT_PORT));
  return {
    agentUrl: agentUrls[0] ?? agentUrlFor("localhost", env().AGENT_PORT),
    agentUrls,
    caFingerprint: ca.fingerprint,
    caNotAfter: ca.notAfter.toISOString(),
    agentImage: env().agentImage,
    agentImageWarning: env().agentImageWarning,
    notReadyThresholdSeconds: settings.notReadyThresholdSeconds,
    heartbeatIntervalSeconds: settings.heartbeatIntervalSeconds,
    requiredLabels: settings.requiredLabels,
    requireApprovalByDefault: settings.requireApprovalByDefault,
  };
}
