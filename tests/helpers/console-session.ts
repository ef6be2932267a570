// Signing in and out of the console over HTTP, as the login form and the user menu do (next-auth's
// CSRF token, then the credentials callback or the sign-out endpoint), for tests that need a
// session of their own or look at what the sign-in answers.
import http from "node:http";

export type SignInReply = {
  status: number;
  /** The session cookie as a Cookie header value, when one was set. */
  cookie: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- next-auth's { url } or an error body
  body: any;
  headers: http.IncomingHttpHeaders;
  setCookies: string[];
};

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
  localAddress?: string,
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { method, hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers, agent: false, localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), headers: res.headers }),
        );
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const cookiePairs = (setCookies: string[]) => setCookies.map((c) => c.split(";")[0]!).filter((c) => !/=$/.test(c));

async function csrf(consoleUrl: string, headers: Record<string, string>, localAddress?: string) {
  const res = await send(`${consoleUrl}/api/auth/csrf`, "GET", headers, undefined, localAddress);
  const token = (parse(res.text) as { csrfToken?: string }).csrfToken;
  if (!token) throw new Error(`GET /api/auth/csrf answered ${res.status}: ${res.text}`);
  return { token, cookie: cookiePairs(([] as string[]).concat(res.headers["set-cookie"] ?? [])).join("; ") };
}

/**
 * One credentials sign-in. `headers` are sent with both requests (say, X-Forwarded-For);
 * `fields` adds form fields (say, a callbackUrl); `localAddress` is the loopback address both
 * requests come from (any 127.x.y.z: a client at another address, with no proxy involved).
 */
export async function signIn(
  consoleUrl: string,
  account: { email: string; password: string },
  opts: { headers?: Record<string, string>; fields?: Record<string, string>; localAddress?: string } = {},
): Promise<SignInReply> {
  const headers = opts.headers ?? {};
  const { token, cookie } = await csrf(consoleUrl, headers, opts.localAddress);
  const form = new URLSearchParams({
    csrfToken: token,
    email: account.email,
    password: account.password,
    json: "true",
    ...opts.fields,
  });
  const res = await send(
    `${consoleUrl}/api/auth/callback/credentials`,
    "POST",
    { ...headers, "content-type": "application/x-www-form-urlencoded", cookie },
    form.toString(),
    opts.localAddress,
  );
  const setCookies = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
  const session = cookiePairs(setCookies).find((c) => /^(__Secure-)?next-auth\.session-token=/.test(c)) ?? null;
  return { status: res.status, cookie: session, body: parse(res.text), headers: res.headers, setCookies };
}

/** Signs in and returns the session cookie, or throws. */
export async function sessionCookie(consoleUrl: string, account: { email: string; password: string }): Promise<string> {
  const res = await signIn(consoleUrl, account);
  if (!res.cookie) throw new Error(`sign-in of ${account.email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.cookie;
}

/** Signs out the way the user menu does (POST with the CSRF token); returns the status. */
export async function signOut(consoleUrl: string, session: string): Promise<number> {
  const { token, cookie } = await csrf(consoleUrl, { cookie: session });
  const res = await send(
    `${consoleUrl}/api/auth/signout`,
    "POST",
    { "content-type": "application/x-www-form-urlencoded", cookie: `${session}; ${cookie}` },
    new URLSearchParams({ csrfToken: token, callbackUrl: "/login", json: "true" }).toString(),
  );
  return res.status;
}
