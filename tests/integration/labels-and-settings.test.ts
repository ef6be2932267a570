// The labels summary (keys, values and cluster counts, GET /api/v1/labels's service) and the
// Settings refusals in the form's words, in-process on the engine TEST_ENGINE picks. Who may read
// the labels (a viewer, not an anonymous caller) is the role matrix's (tests/system/role-matrix.test.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { labelRoutes } from "@/lib/contracts/labels";
import { settingsRoutes } from "@/lib/contracts/settings";
import { SETTING_LABELS } from "@/lib/domain/settings";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { summariseLabels } from "@/lib/server/clusters/label-summary";
import { provisionCluster } from "@/lib/server/clusters/provision-cluster";
import { getSettings } from "@/lib/server/settings/settings";
import { appDatabase } from "../helpers/app-database";
import { ADMIN, callRoute, patchSettings } from "../helpers/route-call";
import { testEngine } from "../helpers/test-database";

appDatabase();

const provision = (body: unknown) =>
  callRoute(clusterRoutes.provision, { body }, async ({ body }) => {
    const { id, registrationToken } = await provisionCluster(ADMIN, body);
    return { ...(await getCluster(id)), registrationToken };
  });

describe(`labels and settings on ${testEngine()}`, () => {
  test("the labels summary counts the clusters carrying each key and value", async () => {
    const clusters = [
      { name: "labels-1", labels: { env: "prod", region: "eu" } },
      { name: "labels-2", labels: { env: "prod", region: "us" } },
      { name: "labels-3", labels: { env: "dev", region: "eu", team: "payments" } },
    ];
    for (const c of clusters) assert.equal((await provision(c)).status, 201);

    const res = await callRoute(labelRoutes.list, {}, () => summariseLabels());
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
  });

  test("settings refusals name the form's labels, never the machine names, and say which field", async () => {
    const machine = Object.keys(SETTING_LABELS);
    const refused = async (patch: Record<string, unknown>, field: string, label: string) => {
      const res = await patchSettings(patch);
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
    const settings = await callRoute(settingsRoutes.get, {}, () => getSettings());
    assert.equal(settings.body.heartbeatIntervalSeconds, 15, "nothing was changed");
  });
});
