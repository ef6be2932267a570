// The codes a sign-in failure may carry to the login page (`/login?error=<code>`), and what the
// page says for each. A code is all a URL ever carries: never an exception's text, which can hold
// SQL, hosts or a provider's answer (the server logs those).

/** Why a single sign-on was refused (lib/server/auth/oidc-sign-in.ts). */
export const SSO_REFUSALS = {
  disabled: "SsoAccountDisabled",
  emailNotVerified: "SsoEmailNotVerified",
  emailLinked: "SsoEmailLinked",
  noRole: "SsoNoRole",
  lastAdmin: "SsoLastAdminUnmapped",
  /** Anything else that went wrong: the details are in the server's log. */
  failed: "SsoFailed",
} as const;

/** The login page's words for each code; a code without words says "Sign-in failed. Try again.". */
export const SIGN_IN_ERROR_MESSAGES: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  OAuthSignin: "Could not reach the single sign-on provider.",
  OAuthCallback: "Single sign-on did not complete. Try again.",
  AccessDenied: "This account is not allowed to sign in.",
  [SSO_REFUSALS.disabled]: "This account is disabled. Ask an admin of Fleet Registry to enable it.",
  [SSO_REFUSALS.emailNotVerified]:
    "The single sign-on provider did not verify this email, which belongs to an existing account; sign in with its password or ask an admin.",
  [SSO_REFUSALS.emailLinked]:
    "This email belongs to an account another single sign-on identity signs in to; sign in as that identity or ask an admin.",
  [SSO_REFUSALS.noRole]:
    "Your single sign-on groups give you no access to Fleet Registry. Ask an admin to add you to a mapped group.",
  [SSO_REFUSALS.lastAdmin]:
    "This account is the last admin, and your single sign-on groups would not keep it one; sign in with its password, or ask for the role mapping to include you.",
  [SSO_REFUSALS.failed]: "Single sign-on did not complete. Try again, or ask an admin to look at the server's log.",
};

export const UNKNOWN_SIGN_IN_ERROR = "Sign-in failed. Try again.";

/** next-auth's own codes (v4), which it puts in its error and sign-in URLs. */
const NEXT_AUTH_CODES = [
  "Signin",
  "OAuthSignin",
  "OAuthCallback",
  "OAuthCreateAccount",
  "EmailCreateAccount",
  "Callback",
  "OAuthAccountNotLinked",
  "EmailSignin",
  "CredentialsSignin",
  "SessionRequired",
  "AccessDenied",
  "Configuration",
  "configuration",
  "Verification",
  "Default",
];

const KNOWN = new Set([...NEXT_AUTH_CODES, ...Object.values(SSO_REFUSALS)]);

/** What an unknown `error` becomes: next-auth's generic code for a failed callback. */
export const FALLBACK_SIGN_IN_ERROR = "Callback";

/**
 * A sign-in redirect whose `error` parameter is a known code and whose other text is only a
 * `callbackUrl`: next-auth puts the text of whatever a callback threw in `?error=` (a database
 * error included), and on some paths unencoded, where it can spill into other parameters or the
 * fragment. Only URLs of the login page and next-auth's own routes are touched; a URL without an
 * `error` parameter, or that does not parse, is returned as it is.
 */
export function withKnownErrorCode(url: string): string {
  const base = "http://relative.invalid";
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    return url;
  }
  const code = parsed.searchParams.get("error");
  if (code === null || (parsed.pathname !== "/login" && !parsed.pathname.startsWith("/api/auth/"))) return url;
  const callbackUrl = parsed.searchParams.get("callbackUrl");
  const query = new URLSearchParams({
    ...(callbackUrl !== null ? { callbackUrl } : {}),
    error: KNOWN.has(code) ? code : FALLBACK_SIGN_IN_ERROR,
  });
  const fixed = `${parsed.origin === base ? "" : parsed.origin}${parsed.pathname}?${query}`;
  // Already clean: keep next-auth's own spelling.
  return fixed === url || new URL(fixed, base).href === parsed.href ? url : fixed;
}
