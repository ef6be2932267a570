import { checkPasswordLinkSchema } from "@/lib/domain/users";
import { passwordLinkRoute } from "@/lib/server/users/password-link-route";
import { checkPasswordLink } from "@/lib/server/users/password-links";

// Whom a set-password link is for and until when, so the page names them before they type.
export const POST = passwordLinkRoute(checkPasswordLinkSchema, ({ token }) => checkPasswordLink(token));
