import { z } from "zod";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith } from "@/lib/server/api/read-body";
import { capacity } from "@/lib/server/node-pools/node-pools";

const query = z.object({
  by: z
    .string()
    .regex(/^[A-Za-z0-9./_-]{1,316}$/)
    .default("region"),
});

/** Fleet-wide node pool capacity, grouped by a label. */
export const GET = adminRoute("viewer", async ({ req }) =>
  Response.json(await capacity(parseWith(query, Object.fromEntries(req.nextUrl.searchParams), "query").by)),
);
