// The servers' body bound (lib/server/net/body-limit.ts) on an in-process loopback server whose
// handler reads whatever it is given to the end, as next-auth's routes do: a Content-Length over
// the limit is 413 before anything is read; a chunked body stops at the limit (the handler never
// sees more than the limit and one chunk) with a 413 the client receives, not a reset; a handler
// that refuses by itself keeps its own answer; a body within the limit reaches the handler whole.
// Bounded: a few seconds.
import assert from "node:assert/strict";
import http from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { bodyLimitFor } from "@/lib/domain/body-limits";
import { admitBody, BoundedRequest, refuseBeforeContinue } from "@/lib/server/net/body-limit";
import { sendBigBody } from "../../helpers/big-body";

const LIMIT = bodyLimitFor("/api/auth/callback/credentials");
let server: http.Server;
let port = 0;
/** Bytes each request's handler got, by request path. */
const seen = new Map<string, number>();
/** Each request's connection, by request path. */
const sockets = new Map<string, net.Socket>();

before(async () => {
  server = http.createServer({ IncomingMessage: BoundedRequest }, (req, res) => {
    sockets.set(req.url!, req.socket);
    if (!admitBody(req, res)) return;
    if (req.url === "/api/v1/refuses-first") {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthenticated"}');
      return;
    }
    // Read as Next reads a route's body: a web stream, pulled until it ends.
    void (async () => {
      let got = 0;
      try {
        const reader = (Readable.toWeb(req) as ReadableStream<Uint8Array>).getReader();
        for (let r = await reader.read(); !r.done; r = await reader.read()) seen.set(req.url!, (got += r.value.length));
        res.writeHead(200).end(String(got));
      } catch {
        // Cut: the refusal was answered already.
      }
    })();
  });
  refuseBeforeContinue(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const send = (path: string, total: number, chunked: boolean) =>
  sendBigBody(`http://127.0.0.1:${port}${path}`, { total, chunked });

const MB = 1024 * 1024;

test("a Content-Length over the limit is 413 at once, and the handler reads nothing", async () => {
  for (let i = 0; i < 10; i++) {
    const path = `/api/auth/callback/credentials?declared=${i}`;
    const o = await send(path, 20 * MB, false);
    assert.equal(o.status, 413, `try ${i}: ${o.error}`);
    assert.equal((JSON.parse(o.body) as { error: string }).error, "payload_too_large");
    assert.ok(o.sent < 20 * MB);
    assert.equal(seen.get(path), undefined, "the handler never ran");
  }
});

test("a chunked body is cut as it crosses the limit: the handler gets at most one chunk more, the client a 413", async () => {
  for (let i = 0; i < 10; i++) {
    const path = `/api/auth/callback/credentials?chunked=${i}`;
    const o = await send(path, 20 * MB, true);
    assert.equal(o.status, 413, `try ${i}: ${o.error}`);
    assert.ok(o.sent < 20 * MB, "the client stopped long before its end");
    const got = seen.get(path) ?? 0;
    assert.ok(got > 0 && got <= LIMIT + 64 * 1024, `the handler got ${got} bytes`);
    // The server stopped reading the connection too, though the handler kept asking for more.
    await new Promise((r) => setTimeout(r, 100));
    const read = sockets.get(path)!.bytesRead;
    assert.ok(read <= LIMIT + 256 * 1024, `the server read ${read} bytes`);
  }
});

test("a handler's own earlier answer stands; a body within the limit arrives whole", async () => {
  const refused = await send("/api/v1/refuses-first", 20 * MB, true);
  assert.equal(refused.status, 401);
  const within = await send("/api/auth/callback/credentials?within", LIMIT, true);
  assert.equal(within.status, 200);
  assert.equal(within.body, String(LIMIT));
  const declared = await send("/api/auth/callback/credentials?declared-within", LIMIT, false);
  assert.equal(declared.body, String(LIMIT));
});

/** A request that asks before sending its body (Expect: 100-continue), and sends it only if told to. */
function askFirst(path: string, total: number): Promise<{ status: number; continued: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = http.request(
      {
        port,
        host: "127.0.0.1",
        method: "POST",
        path,
        agent: false,
        headers: { expect: "100-continue", "content-length": String(total) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, continued, body: Buffer.concat(parts).toString() });
        });
      },
    );
    req.on("continue", () => {
      continued = true;
      req.end(Buffer.alloc(total, "a"));
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

test("a client that asks before sending is told 413, not to continue, when its body is over the limit", async () => {
  const over = await askFirst("/api/auth/callback/credentials?expect-over", 20 * MB);
  assert.deepEqual([over.status, over.continued], [413, false]);
  const within = await askFirst("/api/auth/callback/credentials?expect-within", 1024);
  assert.deepEqual([within.status, within.continued, within.body], [200, true, "1024"]);
});
