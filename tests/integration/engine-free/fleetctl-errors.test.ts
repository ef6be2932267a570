// fleetctl against a loopback HTTP server. Its refusal line: whatever JSON the answer carries (a
// proxy in front of the console may put objects where the API puts a code and a sentence), the line
// is readable words, never "[object Object]". Its answers: read with the route's response schema
// (lib/contracts), so one outside the contract is named as such instead of printed half.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { main } from "@/lib/cli/fleetctl";

let server: http.Server;
let url = "";
let answer: { status: number; body: unknown } = { status: 200, body: {} };
let asked = "";

before(async () => {
  server = http.createServer((req, res) => {
    asked = `${req.method} ${req.url}`;
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

const gateAnswer = {
  pass: false,
  summary: "1 of 1 cluster(s) matching env=prod is not ready.",
  evaluatedAt: "2026-12-01T11:00:00.000Z",
  clusters: [
    { id: "cl_1", name: "prod-1", status: "NotReady", phase: "Active", enrolled: false, reasons: ["status is NotReady"] },
  ],
  tolerance: { maxUnready: null, allowed: 0, unready: 1, total: 1, text: "1 of 1 not ready (tolerated: none)" },
  ignored: { longerThan: null, longerThanSeconds: null, clusters: [], text: null },
};

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const printed: string[] = [];
  const code = await main([...args, "--server", url, "--api-key", "fk_test"], { NODE_ENV: "test" }, (s) => printed.push(s));
  return { code, out: printed.join("\n") };
}

test("an answer in the contract's shape is printed; the request is the contract's method and path", async () => {
  answer = { status: 200, body: gateAnswer };
  const r = await run(["gate", "--selector", "env=prod", "--max-unready", "1"]);
  assert.equal(asked, "GET /api/v1/gate?selector=env%3Dprod&maxUnready=1");
  assert.equal(r.code, 1);
  assert.match(r.out, /^FAIL {2}1 of 1 cluster\(s\)/);
  assert.match(r.out, /prod-1\s+NotReady\s+Active\s+no\s+status is NotReady/);

  answer = { status: 200, body: { id: "rr_1", name: "prod-eu-1", state: "denied", reason: "not ours" } };
  await assert.rejects(run(["deny", "prod eu", "--reason", "not ours"]), /answered outside its contract/);
  assert.equal(asked, "POST /api/v1/registration-requests/prod%20eu/deny");
});

test("an answer outside the contract is refused, naming what is wrong", async () => {
  answer = { status: 200, body: { ...gateAnswer, pass: "yes" } };
  await assert.rejects(run(["gate", "--selector", "env=prod"]), {
    message: /^GET \/api\/v1\/gate\?selector=env%3Dprod answered outside its contract: pass: /,
  });
});

test("a refused decision by name lists the candidates the contract declares", async () => {
  const candidate = {
    id: "rr_a",
    keyFingerprint: "sha256:aa",
    sourceAddress: "10.0.0.1",
    tokenName: "eu",
    clusterUid: null,
    caFingerprint: "sha256:ca",
    apiServerUrl: "https://k8s.example:6443",
    firstSeenAt: "2026-12-01T10:00:00.000Z",
    lastSeenAt: "2026-12-01T10:05:00.000Z",
  };
  answer = {
    status: 409,
    body: {
      error: "ambiguous_request",
      message: "2 requests wait.",
      details: { requests: [candidate, { ...candidate, id: "rr_b" }] },
    },
  };
  const err = await run(["approve", "prod-eu-1"]).then(
    () => assert.fail("no refusal"),
    (e: unknown) => e as Error,
  );
  assert.match(err.message, /^409 ambiguous_request: 2 requests wait\.\nREQUEST\s+KEY FINGERPRINT/);
  assert.match(err.message, /\nrr_b\s+sha256:aa\s+10\.0\.0\.1\s+eu\s+-/);
});
