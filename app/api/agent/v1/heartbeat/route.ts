import { authenticatedAgentRoute } from "@/lib/server/agents/agent-route";
import { readJson } from "@/lib/server/api/read-body";
import { recordHeartbeat } from "@/lib/server/heartbeats/record-heartbeat";

export const POST = authenticatedAgentRoute(async ({ req, agent }) =>
  Response.json(await recordHeartbeat(agent, await readJson(req))),
);
