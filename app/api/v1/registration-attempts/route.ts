import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith } from "@/lib/server/api/read-body";
import { attemptsQuerySchema, listAttempts } from "@/lib/server/clusters/registration-attempts";

export const GET = adminRoute("viewer", async ({ req }) =>
  Response.json(await listAttempts(parseWith(attemptsQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query"))),
);
