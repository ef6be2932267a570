import { openApiDocument } from "@/lib/server/openapi";

/** The OpenAPI 3.1 document of the admin API and the agent protocol, from the routes' zod schemas. */
export function GET() {
  return Response.json(openApiDocument());
}
