// Acting on many clusters: the bulk label change (preview, apply, required labels,
// a filter evaluated again when applied, one audit entry, roles, bad input), the bulk drain
// start, the streamed export (CSV escaping) and saved views, against the real server on the
// engine TEST_ENGINE selects.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { insertRows, ts, type Value } from "../helpers/seed-rows";

const run = promisify(execFile);
let server: FleetServer;
let viewerKey: string;
let operatorKey: string;
const bearer = (key: string) => ({ cookie: null, headers: { authorization: `Bearer ${key}` } });

async function seed(from: number, count: number, labels: (i: number) => Record<string, string>, extra: Value[] = []) {
  const now = Date.now();
  const rows: Value[][] = [];
  const labelRows: Value[][] = [];
  for (let i = from; i < from + count; i++) {
    const id = `cl_bulk${String(i).padStart(6, "0")}`;
    rows.push([
      id,
      `bulk-${String(i).padStart(3, "0")}`,
      "Active",
      ts(now - 86_400_000),
      ts(now),
      "ok",
      ts(now),
      ts(now),
      ...extra,
    ]);
    for (const [k, v] of Object.entries(labels(i))) labelRows.push([id, k, v]);
  }
  const columns = ["id", "name", "phase", "registeredAt", "lastHeartbeatAt", "apiServerHealth", "createdAt", "updatedAt"];
  await insertRows(server.db, "Cluster", extra.length ? [...columns, "kubernetesVersion", "agentVersion"] : columns, rows);
  await insertRows(server.db, "ClusterLabel", ["clusterId", "key", "value"], labelRows);
}

before(async () => {
  server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  // 0-19 prod (even ones tier=silver, every fifth foo=1), 20-29 staging; all with the required env and region.
  await seed(0, 30, (i) => ({
    env: i < 20 ? "prod" : "staging",
    region: "eu",
    ...(i < 20 && i % 2 === 0 ? { tier: "silver" } : {}),
    ...(i % 5 === 0 ? { foo: "1" } : {}),
  }));
  viewerKey = (await server.api("POST", "/api/v1/api-keys", { name: "viewer", role: "viewer" })).body.key;
  operatorKey = (await server.api("POST", "/api/v1/api-keys", { name: "operator", role: "operator" })).body.key;
});
after(async () => {
  await server?.stop();
});

async function labelsOf(id: string): Promise<Record<string, string>> {
  const r = await server.api("GET", `/api/v1/clusters/${id}`);
  assert.equal(r.status, 200);
  return r.body.labels;
}

async function auditOf(action: string) {
  const r = await server.api("GET", `/api/v1/audit?action=${encodeURIComponent(action)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.items as { action: string; details: Record<string, unknown> }[];
}

test("a bulk label change previews, then applies as one audited change", async () => {
  const body = { filter: { selector: "env=prod" }, set: { tier: "gold" }, remove: ["foo"] };
  const preview = await server.api("POST", "/api/v1/clusters/bulk/labels", { ...body, dryRun: true });
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.equal(preview.body.dryRun, true);
  assert.deepEqual(preview.body.summary, {
    matched: 20,
    changed: 20,
    unchanged: 0,
    gains: [{ key: "tier", value: "gold", count: 10 }],
    changes: [{ key: "tier", from: "silver", to: "gold", count: 10 }],
    removals: [{ key: "foo", count: 4 }],
  });
  const first = preview.body.rows.find((r: { id: string }) => r.id === "cl_bulk000000");
  assert.deepEqual(first.before, { env: "prod", region: "eu", tier: "silver", foo: "1" });
  assert.deepEqual(first.after, { env: "prod", region: "eu", tier: "gold" });
  assert.deepEqual(await labelsOf("cl_bulk000000"), first.before, "a preview writes nothing");
  assert.equal((await auditOf("cluster.labels.bulk")).length, 0, "a preview is not audited");

  const applied = await server.api("POST", "/api/v1/clusters/bulk/labels", body, bearer(operatorKey));
  assert.equal(applied.status, 200, JSON.stringify(applied.body));
  assert.equal(applied.body.summary.changed, 20);
  assert.deepEqual(await labelsOf("cl_bulk000000"), { env: "prod", region: "eu", tier: "gold" });
  assert.deepEqual(await labelsOf("cl_bulk000025"), { env: "staging", region: "eu", foo: "1" }, "outside the filter");
  const audit = await auditOf("cluster.labels.bulk");
  assert.equal(audit.length, 1, "one audit entry for the whole change");
  assert.deepEqual(audit[0]!.details.filter, { selector: "env=prod" });
  assert.equal(audit[0]!.details.count, 20);
  assert.equal((audit[0]!.details.clusters as unknown[]).length, 20);

  const again = await server.api("POST", "/api/v1/clusters/bulk/labels", { ...body, dryRun: true });
  assert.equal(again.body.summary.unchanged, 20, "applying twice changes nothing more");
});

test("ids select exactly those clusters; unknown ids are left out", async () => {
  const r = await server.api("POST", "/api/v1/clusters/bulk/labels", {
    ids: ["cl_bulk000021", "cl_bulk000022", "cl_nope"],
    set: { team: "db" },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.summary.matched, 2);
  assert.equal((await labelsOf("cl_bulk000021")).team, "db");
  assert.equal((await labelsOf("cl_bulk000023")).team, undefined);
  const audit = await auditOf("cluster.labels.bulk");
  assert.deepEqual(audit[0]!.details.ids, ["cl_bulk000021", "cl_bulk000022", "cl_nope"]);
  assert.equal(audit[0]!.details.count, 2);
});

test("'all matching' evaluates the filter again when the change is applied", async () => {
  const body = { filter: { selector: "env=staging" }, set: { wave: "2" } };
  const preview = await server.api("POST", "/api/v1/clusters/bulk/labels", { ...body, dryRun: true });
  assert.equal(preview.body.summary.matched, 10);
  await seed(30, 3, () => ({ env: "staging", region: "us" }));
  const applied = await server.api("POST", "/api/v1/clusters/bulk/labels", body);
  assert.equal(applied.status, 200, JSON.stringify(applied.body));
  assert.equal(applied.body.summary.matched, 13, "the clusters that joined since the preview are included");
  assert.equal((await labelsOf("cl_bulk000031")).wave, "2");
});

test("required labels are protected: removing or emptying one is refused with 422, nothing written", async () => {
  const removed = await server.api("POST", "/api/v1/clusters/bulk/labels", {
    filter: { selector: "env=prod" },
    remove: ["region"],
  });
  assert.equal(removed.status, 422, JSON.stringify(removed.body));
  assert.equal(removed.body.error, "missing_required_labels");
  assert.deepEqual(removed.body.details.missing, ["region"]);
  const emptied = await server.api("POST", "/api/v1/clusters/bulk/labels", {
    ids: ["cl_bulk000001"],
    set: { env: "", extra: "x" },
  });
  assert.equal(emptied.status, 422);
  assert.equal(emptied.body.error, "missing_required_labels");
  assert.equal((await labelsOf("cl_bulk000001")).extra, undefined, "refused whole");
});

test("viewers cannot change labels; bad input is a 400 with a code", async () => {
  const body = { filter: { selector: "env=prod" }, set: { tier: "x" }, dryRun: true };
  const viewer = await server.api("POST", "/api/v1/clusters/bulk/labels", body, bearer(viewerKey));
  assert.equal(viewer.status, 403);
  assert.equal(viewer.body.error, "forbidden");
  for (const bad of [
    { set: { a: "1" } },
    { ids: ["cl_bulk000001"], filter: { selector: "env=prod" }, set: { a: "1" } },
    { ids: ["cl_bulk000001"] },
    { ids: ["cl_bulk000001"], set: { a: "1" }, remove: ["a"] },
    { ids: ["cl_bulk000001"], set: { "bad key!": "1" } },
    { filter: { selector: "env in (" }, set: { a: "1" } },
    { filter: { nope: 1 }, set: { a: "1" } },
    { ids: [], set: { a: "1" } },
  ]) {
    const r = await server.api("POST", "/api/v1/clusters/bulk/labels", bad);
    assert.equal(r.status, 400, `${JSON.stringify(bad)} -> ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error, "invalid_request");
  }
});

test("bulk drain start: a dry run, then the wizard's first step per cluster, reported and audited", async () => {
  const body = { ids: ["cl_bulk000028", "cl_bulk000029"] };
  const viewer = await server.api("POST", "/api/v1/clusters/bulk/deregistration", body, bearer(viewerKey));
  assert.equal(viewer.status, 403);
  const dry = await server.api("POST", "/api/v1/clusters/bulk/deregistration", { ...body, dryRun: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.equal(dry.body.started, 2);
  assert.equal(
    (await server.api("GET", "/api/v1/clusters/cl_bulk000028/deregistration")).body.step,
    null,
    "a dry run starts nothing",
  );
  const confirmed = { ...body, reason: "decommission", confirmCount: 2 };
  const started = await server.api("POST", "/api/v1/clusters/bulk/deregistration", confirmed);
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.equal(started.body.started, 2);
  assert.equal((await server.api("GET", "/api/v1/clusters/cl_bulk000028/deregistration")).body.step, "draining");
  const twice = await server.api("POST", "/api/v1/clusters/bulk/deregistration", confirmed);
  assert.equal(twice.body.started, 0);
  assert.equal(twice.body.results[0].ok, false);
  assert.equal(twice.body.results[0].error, "invalid_transition");
  const audit = await auditOf("cluster.deregistration.bulk_start");
  assert.equal(audit.length, 2);
  assert.equal(audit[1]!.details.started, 2);
});

test("bulk drain guards: a filter, a reason and the confirmed count; the dry run breaks the selection down", async () => {
  // 50-55 drill=yes: 50-53 env=qa (50-51 region=eu, 52-53 us), 54-55 env=dev in us; group "qa-drill" holds the qa ones.
  await seed(50, 6, (i) => ({ drill: "yes", env: i < 54 ? "qa" : "dev", region: i < 52 ? "eu" : "us" }));
  const group = await server.api("POST", "/api/v1/groups", { name: "qa-drill", selector: "drill=yes,env=qa" });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  const url = "/api/v1/clusters/bulk/deregistration";
  const drill = { filter: { selector: "drill=yes" } };

  for (const filter of [{}, { q: "  " }, { selector: "" }]) {
    const whole = await server.api("POST", url, { filter, reason: "all of it", confirmCount: 42 });
    assert.equal(whole.status, 400, JSON.stringify(whole.body));
    assert.equal(whole.body.error, "filter_required");
    assert.match(whole.body.message, /needs a filter/);
    const wholeDry = await server.api("POST", url, { filter, dryRun: true });
    assert.equal(wholeDry.body.error, "filter_required", "not even previewed");
  }

  for (const reason of [undefined, "", "   "]) {
    const r = await server.api("POST", url, { ...drill, confirmCount: 6, ...(reason === undefined ? {} : { reason }) });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error, "invalid_request");
    assert.ok(
      r.body.details.some((d: { field: string }) => d.field === "reason"),
      JSON.stringify(r.body),
    );
  }
  const noCount = await server.api("POST", url, { ...drill, reason: "drill" });
  assert.equal(noCount.status, 400);
  assert.ok(
    noCount.body.details.some((d: { field: string }) => d.field === "confirmCount"),
    JSON.stringify(noCount.body),
  );

  const dry = await server.api("POST", url, { ...drill, dryRun: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.equal(dry.body.matched, 6);
  assert.deepEqual(dry.body.breakdown, {
    env: [
      { value: "qa", count: 4 },
      { value: "dev", count: 2 },
    ],
    region: [
      { value: "us", count: 4 },
      { value: "eu", count: 2 },
    ],
    group: [{ name: "qa-drill", count: 4 }],
    ungrouped: 2,
  });

  // One more joins the filter after the person counted: the old count is refused, nothing starts.
  await seed(56, 1, () => ({ drill: "yes", env: "dev", region: "eu" }));
  const stale = await server.api("POST", url, { ...drill, reason: "drill", confirmCount: 6 });
  assert.equal(stale.status, 409, JSON.stringify(stale.body));
  assert.equal(stale.body.error, "count_changed");
  assert.equal(stale.body.details.count, 7);
  assert.equal((await server.api("GET", "/api/v1/clusters/cl_bulk000050/deregistration")).body.step, null);
  const staleIds = await server.api("POST", url, { ids: ["cl_bulk000050", "cl_nope"], reason: "drill", confirmCount: 2 });
  assert.equal(staleIds.status, 409, "ids count the clusters that still exist");
  assert.equal(staleIds.body.details.count, 1);

  const audits = (await auditOf("cluster.deregistration.bulk_start")).length;
  const done = await server.api("POST", url, { ...drill, reason: "drill", confirmCount: 7 }, bearer(operatorKey));
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.started, 7);
  assert.deepEqual(
    done.body.results.map((r: { name: string }) => r.name),
    ["bulk-050", "bulk-051", "bulk-052", "bulk-053", "bulk-054", "bulk-055", "bulk-056"],
  );
  for (const id of ["cl_bulk000050", "cl_bulk000056"])
    assert.equal((await server.api("GET", `/api/v1/clusters/${id}/deregistration`)).body.step, "draining");
  assert.equal((await server.api("GET", "/api/v1/clusters/cl_bulk000027/deregistration")).body.step, null, "outside the filter");
  const audit = await auditOf("cluster.deregistration.bulk_start");
  assert.equal(audit.length, audits + 1);
  assert.equal(audit[0]!.details.reason, "drill");
  assert.equal(audit[0]!.details.count, 7);
});

test("the export streams every matching cluster as CSV (escaped, formula-safe, ISO times) or JSON", async () => {
  await seed(40, 1, () => ({ env: "lab", region: "eu" }), ['=HYPERLINK("http://x","y")', '1.0,"beta"']);
  const csv = await fetch(`${server.consoleUrl}/api/v1/clusters/export?format=csv&selector=env%3Dlab`, {
    headers: { authorization: `Bearer ${viewerKey}` },
  });
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
  assert.match(csv.headers.get("content-disposition") ?? "", /attachment; filename="clusters-.*\.csv"/);
  const lines = (await csv.text()).split("\r\n");
  assert.equal(
    lines[0],
    "id,name,status,phase,labels,kubernetesVersion,agentVersion,nodeCount,reasons,lastHeartbeatAt,registeredAt,owner,notes,snoozedUntil,snoozeOwner,snoozeReason",
  );
  assert.equal(lines.length, 3, "header, one cluster, the final line break");
  assert.ok(
    lines[1]!.startsWith(
      'cl_bulk000040,bulk-040,Ready,Active,env=lab;region=eu,"\'=HYPERLINK(""http://x"",""y"")","1.0,""beta""",,',
    ),
  );
  assert.match(lines[1]!, /,[a-zA-Z;]*,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z,\d{4}-\d\d-\d\dT/, "reason codes, then ISO times");

  const json = await fetch(`${server.consoleUrl}/api/v1/clusters/export?format=json&selector=env%3Dprod`, {
    headers: { authorization: `Bearer ${viewerKey}` },
  });
  const items = (await json.json()) as { id: string; labels: Record<string, string> }[];
  assert.equal(items.length, 20);
  assert.equal(items[0]!.labels.tier, "gold");
  const bad = await server.api("GET", "/api/v1/clusters/export?format=xml");
  assert.equal(bad.status, 400);
});

test("saved views: created and deleted by operators, listed for everyone, audited", async () => {
  const viewer = await server.api("POST", "/api/v1/clusters/views", { name: "x", query: "" }, bearer(viewerKey));
  assert.equal(viewer.status, 403);
  const created = await server.api(
    "POST",
    "/api/v1/clusters/views",
    { name: "prod not ready", query: "status=NotReady&selector=env%3Dprod&cursor=abc&evil=1" },
    bearer(operatorKey),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.query, "status=NotReady&selector=env%3Dprod", "only the list's own parameters are kept");
  const dup = await server.api("POST", "/api/v1/clusters/views", { name: "prod not ready", query: "" });
  assert.equal(dup.status, 409);
  assert.equal((await server.api("POST", "/api/v1/clusters/views", { name: "", query: "" })).status, 400);
  const listed = await server.api("GET", "/api/v1/clusters/views", undefined, bearer(viewerKey));
  assert.deepEqual(
    listed.body.items.map((v: { name: string }) => v.name),
    ["prod not ready"],
  );
  assert.equal(
    (await server.api("DELETE", `/api/v1/clusters/views/${created.body.id}`, undefined, bearer(viewerKey))).status,
    403,
  );
  assert.equal((await server.api("DELETE", `/api/v1/clusters/views/${created.body.id}`)).status, 204);
  assert.equal((await server.api("DELETE", `/api/v1/clusters/views/${created.body.id}`)).status, 404);
  assert.equal((await auditOf("view.create")).length, 1);
  assert.equal((await auditOf("view.delete")).length, 1);
});

test("fleetctl label: the same bulk change by selector, dry run first", async () => {
  const fleetctl = (...args: string[]) =>
    run(process.execPath, ["--import", "tsx", "lib/cli/fleetctl.ts", ...args], {
      env: { ...process.env, FLEET_SERVER: server.consoleUrl, FLEET_API_KEY: operatorKey },
    });
  const dry = await fleetctl("label", "--selector", "env=staging", "--set", "tier=bronze", "--remove", "foo", "--dry-run");
  assert.match(dry.stdout, /13 cluster\(s\) gain tier=bronze/);
  assert.match(dry.stdout, /2 cluster\(s\) lose foo/);
  assert.match(dry.stdout, /dry run: 13 of 13/);
  assert.equal((await labelsOf("cl_bulk000025")).tier, undefined);
  const applied = await fleetctl("label", "--selector", "env=staging", "--set", "tier=bronze", "--remove", "foo");
  assert.match(applied.stdout, /13 of 13 matching cluster\(s\) changed/);
  assert.equal((await labelsOf("cl_bulk000025")).tier, "bronze");
  const refused = await fleetctl("label", "--selector", "env=staging", "--remove", "region").catch(
    (e: { code: number; stderr: string }) => e,
  );
  assert.equal((refused as { code: number }).code, 2);
  assert.match((refused as { stderr: string }).stderr, /422 missing_required_labels/);
});
