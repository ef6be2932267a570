// A real OpenID Provider on loopback for the single sign-on tests: oidc-provider with its
// development login form (any login name and password, then consent). Like a spec-conformant
// provider, it puts email, name and groups in userinfo only: without a `claims` request the ID
// token carries `sub` and little else. The e2e run starts one (e2e/support/oidc-provider.ts); the
// integration test starts its own.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

/**
 * Who a login name signs in as; any other name gets `<login>@idp.test`, no name and no groups.
 * `emailVerified` is sent as given (default true); null leaves the claim out, as some providers do.
 */
export type SsoPerson = { email: string; name?: string; groups: string[]; emailVerified?: boolean | null };

export type OidcProviderOptions = {
  port: number;
  /** The console's origin: its callback and post-logout URLs are the client's registered ones. */
  consoleUrl: string;
  clientId: string;
  clientSecret: string;
  people: Record<string, SsoPerson>;
};

function page(title: string, body: string): string {
  // No external fonts or styles (the stock pages import web fonts): nothing here leaves loopback.
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

function configuration(o: OidcProviderOptions): Configuration {
  return {
    clients: [
      {
        client_id: o.clientId,
        client_secret: o.clientSecret,
        redirect_uris: [`${o.consoleUrl}/api/auth/callback/oidc`],
        post_logout_redirect_uris: [`${o.consoleUrl}/login`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    async findAccount(_ctx, sub) {
      const person = o.people[sub] ?? { email: `${sub}@idp.test`, groups: [] };
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: person.email,
          ...(person.emailVerified === null ? {} : { email_verified: person.emailVerified ?? true }),
          name: person.name,
          groups: person.groups,
        }),
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
    // The provider keeps everything in memory for one test run.
    ttl: { Session: 3600, Interaction: 600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  };
}

export type OidcProviderHandle = {
  issuer: string;
  /**
   * On: the provider answers each authorization request as if it carried another `nonce`, so the
   * ID token it issues belongs to some other request (an injected or replayed token).
   */
  swapNonce(on: boolean): void;
  stop(): Promise<void>;
};

/** Serves the provider on 127.0.0.1:`port` (0: any free port); `issuer` is its URL. */
export async function startOidcProvider(o: OidcProviderOptions): Promise<OidcProviderHandle> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, "127.0.0.1", resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, configuration(o));
  let swapNonce = false;
  provider.use(async (ctx, next) => {
    if (swapNonce && ctx.path === "/auth" && typeof ctx.query.nonce === "string") {
      ctx.query = { ...ctx.query, nonce: "a-nonce-of-another-request" };
    }
    await next();
  });
  server.on("request", provider.callback());
  return {
    issuer,
    swapNonce: (on) => (swapNonce = on),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
