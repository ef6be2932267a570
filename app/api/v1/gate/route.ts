import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith } from "@/lib/server/api/read-body";
import { evaluateGate, gateQuerySchema } from "@/lib/server/gate/evaluate-gate";

export const GET = adminRoute("viewer", async ({ req }) =>
  Response.json(await evaluateGate(parseWith(gateQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query"))),
);
