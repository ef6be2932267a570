// fleetctl's refusal line against a loopback HTTP server: whatever JSON the answer carries (a proxy
// in front of the console may put objects where the API puts a code and a sentence), the line is
// readable words, never "[object Object]".
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { main } from "@/lib/cli/fleetctl";

let server: http.Server;
let url = "";
let answer: { status: number; body: unknown } = { status: 200, body: {} };

before(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function refusal(status: number, body: unknown): Promise<string> {
  answer = { status, body };
  const printed: string[] = [];
  const err = await main(["gate", "--selector", "env=prod", "--server", url, "--api-key", "fk_test"], { NODE_ENV: "test" }, (s) =>
    printed.push(s),
  ).then(
    () => assert.fail(`no refusal: ${printed.join("\n")}`),
    (e: unknown) => e as Error,
  );
  return err.message;
}

test("a proxy's JSON with objects where the code and sentence go reads as what it says", async () => {
  const line = await refusal(502, { error: { code: 502, status: "Bad Gateway" }, message: { message: "upstream unavailable" } });
  assert.equal(line, '502 {"code":502,"status":"Bad Gateway"}: upstream unavailable');
});

test("the API's own refusal is unchanged; an empty answer falls back to the status text", async () => {
  assert.equal(
    await refusal(403, { error: "forbidden", message: "Operators and admins only." }),
    "403 forbidden: Operators and admins only.",
  );
  assert.equal(await refusal(503, {}), "503 error: Service Unavailable");
});
