import "server-only";
import type { NextRequest } from "next/server";
import type { z } from "zod";
import { assertSameOrigin } from "@/lib/server/api/admin-route";
import { errorResponse } from "@/lib/server/api/errors";
import { parseWith, readJson } from "@/lib/server/api/read-body";

/**
 * The set-password page's two calls, made before anyone is signed in: no session or key, so the
 * link's secret is the only credential. They still come only from the console's own origin, and
 * answers are never cached.
 */
export function passwordLinkRoute<S extends z.ZodType>(schema: S, handler: (body: z.output<S>) => Promise<unknown>) {
  return async (req: NextRequest): Promise<Response> => {
    try {
      assertSameOrigin(req);
      const body = parseWith(schema, await readJson(req));
      return Response.json(await handler(body), { headers: { "cache-control": "no-store" } });
    } catch (err) {
      return errorResponse(err);
    }
  };
}
