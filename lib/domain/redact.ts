// Text that may hold a credential, made safe to keep or show: shared by the agent's log and the
// audit log (lib/server/audit/record-audit.ts). Callers never mean to pass a secret; these catch
// the one a server message, an error string or an operator's words echo back.

const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g;
// Our own credentials: registration tokens, API keys, webhook signing secrets.
const FLEET_CREDENTIAL = /(frt|frk|whsec)_[A-Za-z0-9_-]+/g;
const BEARER = /(bearer\s+)\S+/gi;

/** `text` with private keys and our own credentials (tokens, API keys, webhook secrets) blanked. */
export function redactSecrets(text: string): string {
  return text.replace(PRIVATE_KEY, "[redacted private key]").replace(FLEET_CREDENTIAL, "$1_[redacted]");
}

/** redactSecrets, and whatever follows the word "bearer" too (strict: short values and prose alike). */
export function redactCredentials(text: string): string {
  return redactSecrets(text).replace(BEARER, "$1[redacted]");
}

// A URL runs to the next space or quote; punctuation that ends a sentence is not part of it. The
// WHATWG parser (what a delivery or a browser follows) also reads a special scheme without its
// slashes (`https:host/x`, `https:/host`, `https:\\host`) and drops tabs and newlines inside a
// URL: those spellings count as URLs too, so none keeps its path here.
const URL_END = String.raw`(?:[^\s"'<>]*[^\s"'<>.,;:!?)])?`;
const URL_IN_TEXT = new RegExp(
  String.raw`\b(?:https?|wss?|ftp):(?:[^\s"'<>]|[\t\r\n]+(?=[^\s"'<>]))+` + `|[a-z][a-z0-9+.-]*:\/\/${URL_END}`,
  "gi",
);
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * A URL's scheme, host and port only, as the WHATWG parser reads it. Its path, query and user
 * info can carry a credential (Slack's and others' webhook URLs keep theirs in the path); an
 * unparsable one keeps its scheme.
 */
export function urlOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return `${SCHEME.exec(url)?.[0] ?? ""}//[redacted]`;
  }
}

/** `text` with every URL in it reduced to its origin (scheme, host and port). */
export function urlsToOrigins(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => {
    // Sentence punctuation after a URL is the sentence's, as for the slashed form.
    const trail = /[.,;:!?)]+$/.exec(url)?.[0] ?? "";
    return urlOrigin(url.slice(0, url.length - trail.length)) + trail;
  });
}
