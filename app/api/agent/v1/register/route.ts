import { agentRoute } from "@/lib/server/agents/agent-route";
import { readJson } from "@/lib/server/api/read-body";
import { handleRegistration } from "@/lib/server/clusters/registration-endpoint";

export const POST = agentRoute(async ({ req, sourceAddress }) => {
  const reply = await handleRegistration({
    authorization: req.headers.get("authorization"),
    sourceAddress,
    readBody: () => readJson(req),
  });
  return Response.json(reply.body, { status: reply.status, headers: reply.headers });
});
