// What needs the built server of the list queries, on the engine TEST_ENGINE picks: the selector
// that froze the process for 40 s is refused with a 400 and the server stays responsive; forged
// cursors and bad list queries are a 400 naming the field on every paged list (the route's query
// parsing), never a database error. The selector limits themselves, groups saved over them and the
// gate's selection are tests/integration/selector-limits.test.ts, in-process.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { insertRows, ts, type Value } from "../helpers/seed-rows";
import { assertLimit } from "../helpers/selector-refusal";

const COUNT = 240;

let server: FleetServer;

/** `!a,!a,...`: the selector that froze the process for 40 s. */
const negations = (n: number) => Array.from({ length: n }, () => "!a").join(",");

before(async () => {
  server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  const now = Date.now();
  const rows: Value[][] = [];
  for (let i = 0; i < COUNT; i++) {
    rows.push([`cl_sel${String(i).padStart(8, "0")}`, `s-${String(i).padStart(4, "0")}`, "Active", ts(now), ts(now)]);
  }
  await insertRows(server.db, "Cluster", ["id", "name", "phase", "createdAt", "updatedAt"], rows);
});

after(async () => {
  await server?.stop();
});

const q = (s: string) => encodeURIComponent(s);

test("the gate refuses the 666-term selector with a 400 naming the limit, and the server stays responsive", async () => {
  const started = Date.now();
  const gate = await server.api("GET", `/api/v1/gate?selector=${q(negations(666))}`);
  assertLimit(gate, "selector", "length", /at most 1,024 characters long; this one has 1,997/, "gate, 1,997 characters");
  const cut = negations(666).slice(0, 1023); // 342 terms within the length limit
  const gate2 = await server.api("GET", `/api/v1/gate?selector=${q(cut)}`);
  assertLimit(gate2, "selector", "terms", /at most 20 terms; this one has 342/, "gate, 342 terms");
  // 20 x !a is the most this form may have: accepted, and an ordinary answer.
  const twenty = await server.api("GET", `/api/v1/gate?selector=${q(negations(20))}`);
  assert.equal(twenty.status, 200, JSON.stringify(twenty.body).slice(0, 300));
  assert.equal(twenty.body.clusters.length, COUNT);
  const health = await server.api("GET", "/api/healthz", undefined, { cookie: null });
  assert.equal(health.status, 200);
  assert.ok(Date.now() - started < 20_000, "no request above took the server seconds");
});

test("forged cursors are a 400 naming the cursor on every paged list, never a database error", async () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64url");
  const cases: [string, string[]][] = [
    [
      "/api/v1/clusters",
      ["9007199254740993", "18446744073709551616", "1e21", "-50", "1.5", "Infinity", "abc", "{}"].map(b64).concat(["%%%"]),
    ],
    ["/api/v1/audit", ["9007199254740993", "2147483648", "1e21", "-1", "0", "1.5", "abc", "0x10", ""]],
    ["/api/v1/registration-attempts", ["9007199254740993", "2147483648", "1e21", "-1", "0", "1.5", "abc", "0x10", ""]],
  ];
  for (const [path, cursors] of cases) {
    for (const cursor of cursors) {
      const res = await server.api("GET", `${path}?cursor=${encodeURIComponent(cursor)}`);
      assert.equal(res.status, 400, `${path} cursor=${cursor}: ${JSON.stringify(res.body).slice(0, 300)}`);
      assert.equal(res.body.error, "invalid_request", `${path} cursor=${cursor}`);
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === "cursor"),
        `${path} cursor=${cursor}: ${JSON.stringify(res.body)}`,
      );
    }
  }
  // The largest cursors a page could hand out still work (an empty page past the end).
  const far = await server.api("GET", `/api/v1/clusters?cursor=${b64("999999999")}`);
  assert.equal(far.status, 200, JSON.stringify(far.body));
  assert.deepEqual(far.body.items, []);
  for (const path of ["/api/v1/audit", "/api/v1/registration-attempts"]) {
    const res = await server.api("GET", `${path}?cursor=2147483647`);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  }
});

test("bad list queries get a 400 with the field named", async () => {
  for (const [query, field] of [
    ["selector=env%20in%20(", "selector"],
    ["cursor=bm90LWEtbnVtYmVy", "cursor"],
    ["sort=color", "sort"],
  ] as const) {
    const res = await server.api("GET", `/api/v1/clusters?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.error, "invalid_request", query);
    assert.ok(JSON.stringify(res.body).includes(field), `${query}: ${JSON.stringify(res.body)}`);
  }
});
