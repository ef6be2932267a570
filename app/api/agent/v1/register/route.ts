import type { NextRequest } from "next/server";
import { IDENTITY_HEADERS } from "@/lib/server/agents/agent-identity";
import { readJson } from "@/lib/server/api/read-body";
import { handleRegistration } from "@/lib/server/clusters/registration-endpoint";

export async function POST(req: NextRequest) {
  const reply = await handleRegistration({
    authorization: req.headers.get("authorization"),
    sourceAddress: req.headers.get(IDENTITY_HEADERS.remoteAddress),
    readBody: () => readJson(req),
  });
  return Response.json(reply.body, { status: reply.status, headers: reply.headers });
}
