import { redeemPasswordLinkSchema } from "@/lib/domain/users";
import { passwordLinkRoute } from "@/lib/server/users/password-link-route";
import { redeemPasswordLink } from "@/lib/server/users/password-links";

// Sets a password from a one-time link (the /set-password page). Not part of the admin API.
export const POST = passwordLinkRoute(redeemPasswordLinkSchema, ({ token, password }) => redeemPasswordLink(token, password));
