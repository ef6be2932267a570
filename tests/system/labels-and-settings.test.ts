// GET /api/v1/labels (keys, values and cluster counts, readable by a viewer) and the Settings
// refusals in the form's words, on the engine TEST_ENGINE selects.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SETTING_LABELS } from "@/lib/domain/settings";
import { sessionCookie } from "../helpers/console-session";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;

before(async () => {
  server = await startFleetServer();
});
after(async () => {
  await server?.stop();
});

test("the labels endpoint counts the clusters carrying each key and value, for a viewer too", async () => {
  const clusters = [
    { name: "labels-1", labels: { env: "prod", region: "eu" } },
    { name: "labels-2", labels: { env: "prod", region: "us" } },
    { name: "labels-3", labels: { env: "dev", region: "eu", team: "payments" } },
  ];
  for (const c of clusters) assert.equal((await server.api("POST", "/api/v1/clusters", c)).status, 201);

  const account = { email: "viewer@labels.example", password: "a-long-password-1" };
  assert.equal((await server.api("POST", "/api/v1/users", { ...account, role: "viewer" })).status, 201);
  const viewer = await sessionCookie(server.consoleUrl, account);
  const res = await server.api("GET", "/api/v1/labels", undefined, { cookie: viewer });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.clusters, 3);
  assert.deepEqual(res.body.keys, [
    {
      key: "env",
      clusters: 3,
      values: [
        { value: "prod", count: 2 },
        { value: "dev", count: 1 },
      ],
      otherValues: 0,
    },
    {
      key: "region",
      clusters: 3,
      values: [
        { value: "eu", count: 2 },
        { value: "us", count: 1 },
      ],
      otherValues: 0,
    },
    { key: "team", clusters: 1, values: [{ value: "payments", count: 1 }], otherValues: 0 },
  ]);
  assert.equal((await server.api("GET", "/api/v1/labels", undefined, { cookie: null })).status, 401);
});

test("settings refusals name the form's labels, never the machine names, and say which field", async () => {
  const machine = Object.keys(SETTING_LABELS);
  const refused = async (patch: Record<string, unknown>, field: string, label: string) => {
    const res = await server.api("PATCH", "/api/v1/settings", patch);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error, "invalid_request");
    assert.ok(res.body.message.includes(label), res.body.message);
    for (const m of machine) assert.ok(!res.body.message.includes(m), `names ${m}: ${res.body.message}`);
    const detail = res.body.details.find((d: { field: string }) => d.field === field);
    assert.ok(detail?.message.includes(label), JSON.stringify(res.body.details));
  };
  await refused(
    { heartbeatIntervalSeconds: 90, notReadyThresholdSeconds: 60 },
    "heartbeatIntervalSeconds",
    SETTING_LABELS.notReadyThresholdSeconds,
  );
  // One side of the rule alone is checked against the other's stored value (60 by default).
  await refused({ heartbeatIntervalSeconds: 61 }, "heartbeatIntervalSeconds", SETTING_LABELS.heartbeatIntervalSeconds);
  await refused({ auditLogRetentionDays: 7 }, "auditLogRetentionDays", SETTING_LABELS.auditLogRetentionDays);
  // The refusal names the entry at fault, as the form marks that row.
  await refused({ requiredLabels: ["env", "not a key"] }, "requiredLabels.1", SETTING_LABELS.requiredLabels);
  const settings = await server.api("GET", "/api/v1/settings");
  assert.equal(settings.body.heartbeatIntervalSeconds, 15, "nothing was changed");
});
