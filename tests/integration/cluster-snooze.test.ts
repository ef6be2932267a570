// Silence for a known-broken cluster (lib/domain/cluster-snooze.ts, lib/server/clusters/snooze-cluster.ts)
// on the engine TEST_ENGINE picks: the SQL condition agrees with the pure rule, a snooze leaves
// needs attention, suppresses the cluster's alerts (held ones too) and is ended by a status change;
// the gate tolerates snoozed clusters when asked or by the group's setting; owner and notes reach
// the list's search, the export and every payload, with a link back to the cluster's page.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gateQuerySchema } from "@/lib/contracts/fleet";
import { snoozeClusterSchema } from "@/lib/contracts/clusters";
import { snoozeActive } from "@/lib/domain/cluster-snooze";
import { webhookCreateSchema, type WebhookPayload } from "@/lib/domain/webhooks";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import { clusterPage, longestNotReady } from "@/lib/server/clusters/cluster-list-sql";
import { exportClusters } from "@/lib/server/clusters/export-clusters";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { snoozeCluster, unsnoozeCluster } from "@/lib/server/clusters/snooze-cluster";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { evaluateGate } from "@/lib/server/gate/evaluate-gate";
import { getSettings, updateSettings } from "@/lib/server/settings/settings";
import { enqueueStatusWebhooks, enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import { createWebhook } from "@/lib/server/webhooks/subscriptions";
import { listClustersQuerySchema, exportClustersQuerySchema } from "@/lib/contracts/clusters";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

const engine = testEngine();
appDatabase();

const now = new Date();
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const operator = { type: "user", id: "u1", label: "ops@example.com" } as const;

async function seed(id: string, extra: Record<string, unknown> = {}) {
  const { requiredLabels, notReadyThresholdSeconds } = await getSettings();
  await db().cluster.create({
    data: {
      id,
      name: id.replaceAll("_", "-"),
      phase: "Active",
      status: "NotReady",
      registeredAt: at(-86_400),
      statusChangedAt: at(-3600),
      phaseChangedAt: at(-7200),
      lastHeartbeatAt: at(-notReadyThresholdSeconds - 3600),
      apiServerHealth: "ok",
      logsReporting: true,
      metricsReporting: true,
      labels: {
        create: [
          { key: "fleet", value: "sz" },
          ...requiredLabels.filter((k) => k !== "fleet").map((key) => ({ key, value: "x" })),
        ],
      },
      ...extra,
    },
  });
}

describe(`snoozing a known-broken cluster on ${engine}`, () => {
  test("the SQL condition says what snoozeActive says", async () => {
    const cases = [
      { until: 3600, snoozedAt: -60, status: -3600, phase: -7200 },
      { until: -1, snoozedAt: -60, status: -3600, phase: -7200 }, // expired
      { until: 3600, snoozedAt: -60, status: -30, phase: -7200 }, // status recorded since
      { until: 3600, snoozedAt: -60, status: -3600, phase: -30 }, // phase changed since
      { until: 3600, snoozedAt: -60, status: -60, phase: -60 }, // same instant: still the snoozed state
    ];
    const expected: string[] = [];
    for (const [i, c] of cases.entries()) {
      const facts = {
        snoozedUntil: at(c.until),
        snoozedAt: at(c.snoozedAt),
        statusChangedAt: at(c.status),
        phaseChangedAt: at(c.phase),
      };
      await seed(`cl_rule_${i}`, { ...facts, snoozeReason: "r", snoozeOwner: "o" });
      if (snoozeActive(facts, now)) expected.push(`cl_rule_${i}`);
    }
    await seed("cl_rule_none");
    const page = await clusterPage({ snoozed: true }, { sort: "name", order: "asc", offset: 0, limit: 100 }, now, 60);
    assert.deepEqual(page.ids.filter((id) => id.startsWith("cl_rule")).sort(), expected.sort());
    assert.deepEqual(expected.sort(), ["cl_rule_0", "cl_rule_4"]);
    const rest = await clusterPage({ snoozed: false }, { sort: "name", order: "asc", offset: 0, limit: 100 }, now, 60);
    assert.ok(rest.ids.includes("cl_rule_none") && !rest.ids.includes("cl_rule_0"));
  });

  test("a snooze is refused in the past, past 30 days, and without a reason or an owner", async () => {
    await seed("cl_refused");
    for (const until of [at(-60), at(31 * 86_400)]) {
      await assert.rejects(
        snoozeCluster(operator, "cl_refused", { until: until.toISOString(), reason: "known issue", owner: "team-db" }, now),
        (err: unknown) => err instanceof ApiError && err.code === "invalid_request",
      );
    }
    for (const body of [
      { until: at(60).toISOString(), reason: "", owner: "x" },
      { until: at(60).toISOString(), reason: "known" },
    ]) {
      assert.throws(
        () => parseWith(snoozeClusterSchema, body),
        (err: unknown) => err instanceof ApiError && err.status === 400,
      );
    }
    await assert.rejects(
      unsnoozeCluster(operator, "cl_refused"),
      (err: unknown) => err instanceof ApiError && err.code === "conflict",
    );
  });

  test("snoozed: out of needs attention, alerts suppressed (held ones too), audited, shown in the list; a status change ends it", async () => {
    await updateSettings(SYSTEM_ACTOR, { webhookAllowPrivateTargets: true });
    const hook = await createWebhook(
      SYSTEM_ACTOR,
      webhookCreateSchema.parse({
        url: "http://127.0.0.1:9/snooze",
        events: ["cluster.notReady", "cluster.certificateExpiring"],
      }),
    );
    await seed("cl_broken", { owner: "team-db", notes: "disk array replaced on Monday" });
    const { notReadyThresholdSeconds } = await getSettings();
    assert.ok((await longestNotReady(now, notReadyThresholdSeconds, 100)).includes("cl_broken"));
    // A NotReady alert in its hold when the operator snoozes.
    await inTransaction((tx) =>
      enqueueStatusWebhooks(tx, {
        cluster: { id: "cl_broken", name: "cl-broken" },
        from: "Ready",
        to: "NotReady",
        reason: "no heartbeat",
        at: now,
      }),
    );
    const held = await db().webhookDelivery.findFirstOrThrow({ where: { clusterId: "cl_broken", subscriptionId: hook.id } });
    const payload = JSON.parse(held.payload) as WebhookPayload;
    assert.equal(payload.cluster!.owner, "team-db");
    assert.equal(payload.cluster!.notes, "disk array replaced on Monday");
    assert.match(payload.cluster!.url!, /^https?:\/\/[^/]+\/clusters\/cl_broken$/);

    await snoozeCluster(
      operator,
      "cl_broken",
      { until: at(3600).toISOString(), reason: "vendor ticket 4711", owner: "alice" },
      now,
    );
    assert.equal((await db().webhookDelivery.findUniqueOrThrow({ where: { seq: held.seq } })).state, "suppressed");
    assert.ok(!(await longestNotReady(now, notReadyThresholdSeconds, 100)).includes("cl_broken"));
    const audit = await db().auditLog.findFirstOrThrow({ where: { action: "cluster.snooze", targetId: "cl_broken" } });
    assert.equal(audit.actorLabel, "ops@example.com");
    assert.match(audit.details ?? "", /vendor ticket 4711/);

    // A new alert while snoozed is logged as suppressed, never sent.
    await enqueueWebhookEvent(db(), {
      type: "cluster.certificateExpiring",
      cluster: { id: "cl_broken", name: "cl-broken" },
      data: { serial: "01" },
      occurredAt: at(1),
    });
    const latest = await db().webhookDelivery.findFirstOrThrow({ where: { clusterId: "cl_broken" }, orderBy: { seq: "desc" } });
    assert.equal(latest.state, "suppressed");
    assert.match(latest.lastError ?? "", /snoozed until .* by ops@example.com: vendor ticket 4711/);

    // The list shows it, finds it by owner and notes, and filters it.
    const list = await listClusters(parseWith(listClustersQuerySchema, { q: "DISK ARRAY", snoozed: "true" }, "query"));
    assert.deepEqual(
      list.items.map((c) => [c.id, c.owner, c.snooze?.owner, c.snooze?.reason]),
      [["cl_broken", "team-db", "alice", "vendor ticket 4711"]],
    );
    const csv = await (await exportClusters(parseWith(exportClustersQuerySchema, { q: "team-db" }, "query"))).text();
    assert.match(csv.split("\r\n")[0]!, /,owner,notes,snoozedUntil,snoozeOwner,snoozeReason$/);
    assert.match(csv, /cl_broken,.*,team-db,disk array replaced on Monday,[^,]+,alice,vendor ticket 4711/);

    // A recorded status change ends it: alerts and needs attention resume.
    await db().cluster.update({ where: { id: "cl_broken" }, data: { status: "Ready", statusChangedAt: at(2) } });
    const after = await listClusters(parseWith(listClustersQuerySchema, { q: "cl-broken" }, "query"));
    assert.equal(after.items[0]!.snooze, null);
  });

  test("unsnooze ends it now, audited", async () => {
    await seed("cl_unsnooze");
    await snoozeCluster(operator, "cl_unsnooze", { until: at(3600).toISOString(), reason: "known", owner: "bob" }, now);
    await unsnoozeCluster(operator, "cl_unsnooze");
    assert.equal((await db().cluster.findUniqueOrThrow({ where: { id: "cl_unsnooze" } })).snoozedUntil, null);
    assert.ok(await db().auditLog.findFirst({ where: { action: "cluster.unsnooze", targetId: "cl_unsnooze" } }));
  });

  test("the gate leaves snoozed unready clusters out when asked, or by the group's setting", async () => {
    await db().cluster.deleteMany({ where: { labels: { some: { key: "fleet", value: "sz" } } } });
    const { notReadyThresholdSeconds } = await getSettings();
    await seed("cl_gate_ok", { status: "Ready", lastHeartbeatAt: now });
    await seed("cl_gate_snoozed", { lastHeartbeatAt: at(-notReadyThresholdSeconds - 600) });
    await snoozeCluster(operator, "cl_gate_snoozed", { until: at(3600).toISOString(), reason: "known", owner: "carol" }, now);
    const gate = (q: Record<string, string>) => evaluateGate(parseWith(gateQuerySchema, q, "query"), at(1));

    const strict = await gate({ selector: "fleet=sz" });
    assert.equal(strict.pass, false);
    assert.equal(strict.snoozed!.tolerated, false);

    const tolerant = await gate({ selector: "fleet=sz", tolerateSnoozed: "true" });
    assert.equal(tolerant.pass, true);
    assert.deepEqual(
      tolerant.clusters.map((c) => c.name),
      ["cl-gate-ok"],
    );
    assert.deepEqual(
      tolerant.snoozed!.clusters.map((c) => [c.name, c.owner]),
      [["cl-gate-snoozed", "carol"]],
    );
    assert.equal(tolerant.snoozed!.text, "left out 1 snoozed: cl-gate-snoozed");

    await db().clusterGroup.create({ data: { name: "sz-tolerant", selector: "fleet=sz", gateTolerateSnoozed: true } });
    assert.equal((await gate({ group: "sz-tolerant" })).pass, true);
    assert.equal((await gate({ group: "sz-tolerant", tolerateSnoozed: "false" })).pass, false);
  });
});
