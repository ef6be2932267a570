import { authenticatedAgentRoute } from "@/lib/server/agents/agent-route";
import { readJson } from "@/lib/server/api/read-body";
import { rotateCertificate } from "@/lib/server/clusters/rotate-certificate";

// Rotate, and only rotate, accepts a certificate expired less than the renewal grace ago.
export const POST = authenticatedAgentRoute(
  async ({ req, agent }) => Response.json(await rotateCertificate(agent, await readJson(req))),
  { acceptExpired: true },
);
