import { publicAgentRoute } from "@/lib/server/agents/agent-route";
import { fleetCa } from "@/lib/server/pki/current-ca";

export const dynamic = "force-dynamic";

/** The fleet CA certificate (public, so on both ports), for agents that pin it by fingerprint. */
export const GET = publicAgentRoute(async () => {
  const ca = await fleetCa();
  return new Response(ca.certPem, {
    headers: {
      "content-type": "application/x-pem-file",
      "x-fleet-ca-fingerprint": ca.fingerprint,
      "cache-control": "public, max-age=300",
    },
  });
});
