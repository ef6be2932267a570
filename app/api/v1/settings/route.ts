import { settingsPatchSchema } from "@/lib/domain/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { getSettings, updateSettings } from "@/lib/server/settings/settings";

export const GET = adminRoute("admin", async () => Response.json(await getSettings()));

export const PATCH = adminRoute("admin", async ({ req, principal }) => {
  const patch = parseWith(settingsPatchSchema, await readJson(req));
  return Response.json(await updateSettings(principal.actor, patch));
});
