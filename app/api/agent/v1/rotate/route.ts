import { authenticatedAgentRoute } from "@/lib/server/agents/agent-route";
import { readJson } from "@/lib/server/api/read-body";
import { rotateCertificate } from "@/lib/server/clusters/rotate-certificate";

export const POST = authenticatedAgentRoute(async ({ req, agent }) =>
  Response.json(await rotateCertificate(agent, await readJson(req))),
);
