// The console's start-up warm-up (lib/server/console-warmup.ts) against an in-process loopback
// HTTP server: each path once, in order, anonymously, and a server that is gone or slow to answer
// never fails the start. Bounded: a few seconds.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { warmConsole, warmupBaseUrl, WARMUP_PATHS } from "@/lib/server/console-warmup";

async function listen(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test("warmupBaseUrl reaches a wildcard listener on loopback and keeps a specific address", () => {
  assert.equal(warmupBaseUrl("0.0.0.0", 3000), "http://127.0.0.1:3000");
  assert.equal(warmupBaseUrl("::", 3000), "http://[::1]:3000");
  assert.equal(warmupBaseUrl("127.0.0.1", 28000), "http://127.0.0.1:28000");
  assert.equal(warmupBaseUrl("::1", 28000), "http://[::1]:28000");
  assert.equal(warmupBaseUrl("10.1.2.3", 3000), "http://10.1.2.3:3000");
});

test("the warm-up requests the overview, sign-in and overview API once each, in order, without credentials", async () => {
  const seen: { url: string; cookie?: string; authorization?: string; method: string }[] = [];
  const { server, url } = await listen((req, res) => {
    seen.push({ url: req.url!, method: req.method!, cookie: req.headers.cookie, authorization: req.headers.authorization });
    // As the real console answers an anonymous visitor: a redirect and a 401 must not stop it.
    if (req.url === "/") res.writeHead(307, { location: "/login" }).end();
    else if (req.url === "/api/v1/overview") res.writeHead(401).end('{"error":"unauthenticated"}');
    else res.end("<html></html>");
  });
  try {
    await warmConsole(url);
    assert.deepEqual(
      seen.map((s) => s.url),
      [...WARMUP_PATHS],
    );
    assert.ok(seen.every((s) => s.method === "GET" && !s.cookie && !s.authorization));
  } finally {
    server.close();
  }
});

test("a console that is not there, or that fails, does not make the warm-up throw", async () => {
  const { server, url } = await listen((req) => req.socket.destroy());
  await warmConsole(url);
  server.close();
  await new Promise((resolve) => server.once("close", resolve));
  await warmConsole(url); // connection refused now
});
