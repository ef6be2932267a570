import { NextResponse, type NextRequest } from "next/server";

/** The path a console page was requested at, for the layout's role check (lib/domain/page-roles.ts). */
export const CONSOLE_PATH_HEADER = "x-console-path";

export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(CONSOLE_PATH_HEADER, request.nextUrl.pathname);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: the APIs, Next's assets and files need no path header.
  matcher: ["/((?!api/|_next/|favicon.ico).*)"],
};
