import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { contentSecurityPolicy, NONCE_HEADER } from "@/lib/domain/content-security-policy";

/** The path a console page was requested at, for the layout's role check (lib/domain/page-roles.ts). */
export const CONSOLE_PATH_HEADER = "x-console-path";

export function proxy(request: NextRequest) {
  // A fresh unpredictable nonce per page request (which is why every page renders dynamically).
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const csp = contentSecurityPolicy(nonce, { dev: env().NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set(CONSOLE_PATH_HEADER, request.nextUrl.pathname);
  headers.set(NONCE_HEADER, nonce);
  // Next takes the nonce for its own scripts from the request's CSP header.
  headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  // Pages only: the APIs, Next's assets and files need no path header and no CSP.
  matcher: ["/((?!api/|_next/|favicon.ico).*)"],
};
