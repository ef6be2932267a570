// A real OpenID Provider on loopback for the single sign-on tests: oidc-provider with its
// development login form (any login name and password, then consent). Started by the e2e config as
// a second web server (`node --import tsx e2e/support/oidc-provider.ts`); the console discovers it
// at the first SSO sign-in. Like a spec-conformant provider, it puts email, name and groups in
// userinfo only (no `claims` request means the ID token carries `sub` and little else).
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ISSUER, OIDC_PORT, SSO_PEOPLE } from "./oidc";
import { BASE_URL } from "./run";

function page(title: string, body: string): string {
  // No external fonts or styles (the stock pages import web fonts): nothing here leaves loopback.
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

export function oidcProvider(consoleUrl: string): Provider {
  const configuration: Configuration = {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [`${consoleUrl}/api/auth/callback/oidc`],
        post_logout_redirect_uris: [`${consoleUrl}/login`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
      const person = SSO_PEOPLE[sub] ?? { email: `${sub}@idp.test`, name: undefined, groups: [] };
      return {
        accountId: sub,
        claims: async () => ({ sub, email: person.email, email_verified: true, name: person.name, groups: person.groups }),
      };
    },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.body = page(
            "Sign out of the loopback IdP?",
            `${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>`,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.body = page("Signed out of the loopback IdP", "");
        },
      },
    },
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = page("IdP error", `<pre>${JSON.stringify(out).replace(/</g, "&lt;")}</pre>`);
    },
    // Short-lived sessions are fine for a test run; the IdP keeps everything in memory.
    ttl: { Session: 3600, Interaction: 600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  };
  return new Provider(OIDC_ISSUER, configuration);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const provider = oidcProvider(BASE_URL);
  const server = createServer(provider.callback()).listen(OIDC_PORT, "127.0.0.1", () => {
    console.log(`loopback OpenID Provider at ${OIDC_ISSUER} for ${BASE_URL}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
