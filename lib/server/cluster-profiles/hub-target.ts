import "server-only";
import { resolveTarget, type SettingTargetRule } from "@/lib/server/webhooks/post-webhook";

// The hub's address is checked as a webhook's is (server-side request forgery): its host is
// resolved and every address checked, private ones only when an admin allows them, and the
// connection goes to the checked address. Its own setting: a hub inside the network is a separate
// choice from webhooks there.
export const HUB_RULE: SettingTargetRule = {
  subject: "the ClusterProfile hub is reached at",
  setting: "hubAllowPrivateTargets",
  allowedBy: "Settings: hubAllowPrivateTargets",
};

/** The checked address to connect to for the hub's host, or TargetRefused saying why not. */
export function resolveHubTarget(hostname: string, allowPrivate: boolean) {
  return resolveTarget(hostname, allowPrivate, HUB_RULE);
}
