import "server-only";
import { env } from "@/lib/env";
import { processSingleton } from "@/lib/server/process-singletons";

// The provider's end_session_endpoint, read from its discovery document once per process (a
// provider that has none is remembered too); a failed look-up is retried at the next sign-out.
const DISCOVERY_TIMEOUT_MS = 5_000;
const discovered = () => processSingleton("oidc-end-session", () => ({ endpoint: undefined as string | null | undefined }));

async function endSessionEndpoint(issuer: string): Promise<string | null> {
  const cache = discovered();
  if (cache.endpoint !== undefined) return cache.endpoint;
  try {
    const res = await fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
    if (!res.ok) return null;
    const doc = (await res.json()) as { end_session_endpoint?: unknown };
    cache.endpoint = typeof doc.end_session_endpoint === "string" ? doc.end_session_endpoint : null;
    return cache.endpoint;
  } catch {
    return null;
  }
}

/**
 * Where the browser goes after our sign-out of a single sign-on session: the provider's
 * end-session endpoint (RP-initiated logout), which ends the provider's session and sends the
 * browser back to `returnTo`. Null when SSO is off or the provider has no such endpoint: then the
 * sign-out is ours alone.
 */
export async function providerSignOutUrl(idToken: string, returnTo: string): Promise<string | null> {
  const oidc = env().oidc;
  if (!oidc) return null;
  const endpoint = await endSessionEndpoint(oidc.issuer);
  if (!endpoint) return null;
  const url = new URL(endpoint);
  url.searchParams.set("id_token_hint", idToken);
  url.searchParams.set("post_logout_redirect_uri", returnTo);
  url.searchParams.set("client_id", oidc.clientId);
  return url.toString();
}
