// The loopback OpenID Provider's facts, shared by the config (the console's OIDC_* settings), the
// provider itself (e2e/support/oidc-provider.ts) and the single sign-on spec.
import type { SsoPerson } from "../../tests/helpers/oidc-provider";
import { PORT } from "./run";

export const OIDC_PORT = Number(process.env.E2E_OIDC_PORT || PORT + 1);
export const OIDC_ISSUER = `http://127.0.0.1:${OIDC_PORT}`;
export const OIDC_CLIENT_ID = "fleet-registry-e2e";
export const OIDC_CLIENT_SECRET = "e2e-oidc-client-secret-that-is-long-enough";
export const OIDC_NAME = "Loopback IdP";

/** Who a login name signs in as at the provider. */
export const SSO_PEOPLE = {
  "ada.viewer": { email: "ada@idp.test", name: "Ada Lovelace", groups: ["staff"] },
  "grace.ops": { email: "grace@idp.test", name: "Grace Hopper", groups: ["staff", "platform-ops"] },
  "linus.admin": { email: "linus@idp.test", name: "Linus Admin", groups: ["platform-ops", "platform-admins"] },
  "ken.signout": { email: "ken@idp.test", name: "Ken Signout", groups: [] },
} satisfies Record<string, SsoPerson>;
