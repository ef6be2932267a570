// The console pages' Content-Security-Policy (proxy.ts sets it per request). Scripts run only by
// the request's nonce: Next reads it from this same header on the request and puts it on its own
// scripts, the root layout puts it on the theme script, and 'strict-dynamic' extends the trust to
// the chunks those load. Styles keep 'unsafe-inline': the charts and React write style attributes.

/** Request header through which proxy.ts hands the nonce to the root layout. */
export const NONCE_HEADER = "x-nonce";

export function contentSecurityPolicy(nonce: string, opts: { dev: boolean }): string {
  return [
    "default-src 'self'",
    // next dev evaluates modules for its overlay and fast refresh; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    // Sign-in posts to this origin only; single sign-on leaves by a script navigation, not a form.
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
