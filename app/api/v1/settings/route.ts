import { settingsRoutes } from "@/lib/contracts/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { checkSettingsPatch, getSettings, updateSettings } from "@/lib/server/settings/settings";

export const GET = adminRoute(settingsRoutes.get, async () => getSettings());

export const PATCH = adminRoute(settingsRoutes.update, async ({ principal, body }) => updateSettings(principal.actor, body), {
  checkBody: checkSettingsPatch,
});
