import "server-only";
import { ApiError } from "@/lib/server/api/errors";
import { getSettings } from "@/lib/server/settings/settings";
import { resolveTarget, TargetRefused, type SettingTargetRule } from "@/lib/server/webhooks/post-webhook";

/**
 * Refuses a URL an admin saves when its host resolves to an address this kind of target may not
 * reach: 400 `target_not_allowed` on `field`, the rule's setting deciding on private addresses.
 * Every connection checks again, since the host's answer may change.
 */
export async function refuseForbiddenTarget(url: string, rule: SettingTargetRule, field: string) {
  const settings = await getSettings();
  try {
    await resolveTarget(new URL(url).hostname, settings[rule.setting], rule);
  } catch (err) {
    if (err instanceof TargetRefused) throw new ApiError("target_not_allowed", err.message, [{ field, message: err.message }]);
    throw err;
  }
}
