import { compatibilityMatrixSchema } from "@/lib/domain/compatibility";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { getMatrix, setMatrix } from "@/lib/server/versions/compatibility";

export const GET = adminRoute("viewer", async () => Response.json(await getMatrix()));

export const PUT = adminRoute("admin", async ({ req, principal }) =>
  Response.json(await setMatrix(principal.actor, parseWith(compatibilityMatrixSchema, await readJson(req)))),
);

/** Back to the matrix shipped with this build. */
export const DELETE = adminRoute("admin", async ({ principal }) => Response.json(await setMatrix(principal.actor, null)));
