import { publicAgentRoute } from "@/lib/server/agents/agent-route";
import { caState } from "@/lib/server/pki/current-ca";

export const dynamic = "force-dynamic";

/**
 * The fleet CA certificate (public, so on both ports), for agents that pin it by fingerprint.
 * During a CA rollover a PEM bundle: the CA of the agent port's server certificate first, then the
 * incoming one.
 */
export const GET = publicAgentRoute(async () => {
  const state = await caState();
  return new Response(state.bundlePem, {
    headers: {
      "content-type": "application/x-pem-file",
      "x-fleet-ca-fingerprint": state.serving.fingerprint,
      "cache-control": "public, max-age=60",
    },
  });
});
