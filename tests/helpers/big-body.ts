// Sends a large request body the way an attacker would (with Content-Length or chunked), stopping
// as soon as the server answers or cuts the connection, so a test can tell how far the server read.
import http from "node:http";
import https from "node:https";

export type BigBodyOutcome = {
  /** The answer's status, or null when the connection was cut first. */
  status: number | null;
  body: string;
  /** The connection error (ECONNRESET, EPIPE), when there was no answer. */
  error: string | null;
  /** Bytes handed to the connection before the answer or the cut. */
  sent: number;
};

/**
 * POSTs (or `method`s) up to `total` bytes to `url` (https: any server certificate), 64 KiB at a
 * time. `chunked`: no Content-Length, so only a server counting as it reads can stop it.
 */
export function sendBigBody(
  url: string,
  opts: { total: number; chunked: boolean; method?: string; headers?: Record<string, string> },
): Promise<BigBodyOutcome> {
  const u = new URL(url);
  const tls = u.protocol === "https:";
  const chunk = Buffer.alloc(64 * 1024, "a");
  const { total, chunked } = opts;
  return new Promise((resolve) => {
    let sent = 0;
    let settled = false;
    const done = (o: Omit<BigBodyOutcome, "sent">) => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve({ ...o, sent });
    };
    const options: https.RequestOptions = {
      method: opts.method ?? "POST",
      hostname: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      agent: false,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(total) }),
        ...opts.headers,
      },
      ...(tls ? { rejectUnauthorized: false } : {}),
    };
    const req = (tls ? https : http).request(options, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      const finish = () => done({ status: res.statusCode ?? 0, error: null, body: Buffer.concat(parts).toString("utf8") });
      res.on("end", finish);
      res.on("error", finish);
      res.on("close", finish);
    });
    req.on("error", (err: NodeJS.ErrnoException) => done({ status: null, error: err.code ?? err.message, body: "" }));
    const pump = () => {
      while (!settled && sent < total) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once("drain", pump);
      }
      if (!settled) req.end();
    };
    pump();
  });
}
