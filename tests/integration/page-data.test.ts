// Each console page's first data (lib/server/console/page-queries.ts), loaded in-process on the
// engine TEST_ENGINE picks as openPage loads it: every query of every page in the table loads
// for an admin, in its route's declared response shape (the JSON the client's fetch would have
// cached), under the key the page's island asks for; a query the role may not read, or a filter
// the API would refuse, is left to the client.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { hashKey, type DehydratedState } from "@tanstack/react-query";
import { auditFilterFromSearchParams } from "@/lib/contracts/audit";
import { queryKeys } from "@/lib/client/query-keys";
import { CONSOLE_PAGES } from "@/lib/domain/page-roles";
import { hasRole } from "@/lib/domain/roles";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import type { Principal } from "@/lib/server/auth/principal";
import { pageData, type PageQuery } from "@/lib/server/console/page-data";
import { PAGE_QUERIES, type PageRequest } from "@/lib/server/console/page-queries";
import { db } from "@/lib/server/db/client";
import { fleetRoutes, type GateQuery, type GateResult } from "@/lib/contracts/fleet";
import { evaluateGate } from "@/lib/server/gate/evaluate-gate";
import { createGroup } from "@/lib/server/groups/groups";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { registerCluster } from "@/lib/server/registration/register-cluster";
import { registrationBody } from "../helpers/agent-client";
import { appDatabase } from "../helpers/app-database";
import { csrForKey, makeKey } from "../helpers/csr";
import { testEngine } from "../helpers/test-database";

appDatabase();

const principal = (role: Principal["role"]): Principal => ({
  actor: { type: "user", id: null, label: `${role}@example.com` },
  role,
  teams: [],
  via: "session",
  user: null,
});

/** The value a query holds in the dehydrated state, or undefined when it was left out. */
function valueOf(state: DehydratedState, q: PageQuery): unknown {
  return state.queries.find((d) => d.queryHash === hashKey(q.key))?.state.data;
}

describe(`console pages' first data on ${testEngine()}`, () => {
  const ids: Record<string, string> = {};

  before(async () => {
    const cluster = await db().cluster.create({
      data: {
        id: "cl_ssr1",
        name: "ssr-1",
        phase: "Active",
        status: "Ready",
        lastHeartbeatAt: new Date(),
        apiServerHealth: "ok",
        agentVersion: "1.4.0",
        labels: { create: [{ key: "fleet", value: "ssr" }] },
      },
    });
    ids.cluster = cluster.id;
    const rollout = await createRollout(SYSTEM_ACTOR, {
      name: "to 1.5.0",
      targetVersion: "1.5.0",
      selector: "fleet=ssr",
      stages: [{ name: "all", percent: 100 }],
      maxUnavailable: 1,
      waitSeconds: 0,
      failureThreshold: 1,
      clusterTimeoutSeconds: 600,
      includeUnready: false,
      requireApproval: false,
    });
    ids.rollout = rollout.id;
    // One registration waiting for approval: the queue's first page.
    const token = await mintToken(SYSTEM_ACTOR, { name: "ssr-approve", ttlSeconds: 3600, maxClusters: 1, requireApproval: true });
    const { body } = registrationBody("ssr-waiting", { csr: csrForKey(makeKey().privateKeyPem), clusterUid: "uid-ssr" });
    await registerCluster(token.token, body, { sourceAddress: "203.0.113.9" });
    await recordAudit(db(), SYSTEM_ACTOR, "settings.update", { type: "settings", id: "fleet" });
    await createGroup(SYSTEM_ACTOR, { name: "ssr", selector: "fleet=ssr" });
  });

  const request = (route: string): PageRequest => ({
    params: route.includes("[id]")
      ? { id: route.startsWith("/rollouts") ? ids.rollout! : ids.cluster! }
      : route.includes("[name]")
        ? { name: "ssr" }
        : {},
    search: new URLSearchParams(),
  });

  test("every page's queries load for an admin, each in its route's response shape", async () => {
    for (const { route } of CONSOLE_PAGES) {
      const queries = PAGE_QUERIES[route](request(route));
      assert.ok(queries.length > 0, `${route} has no first data`);
      const state = await pageData(principal("admin"), queries);
      for (const q of queries) {
        const value = valueOf(state, q);
        assert.notEqual(value, undefined, `${route}: ${q.contract.path} was not loaded`);
        const reply = q.infinite ? (value as { pages: unknown[] }).pages[0] : value;
        const parsed = q.contract.response!.safeParse(reply);
        assert.ok(parsed.success, `${route}: ${q.contract.path} outside its contract: ${parsed.error?.message}`);
      }
    }
  });

  test("the pages named for it carry their data: audit entries, the waiting request, settings, the form's versions", async () => {
    const first = async (route: keyof typeof PAGE_QUERIES, path: string) => {
      const queries = PAGE_QUERIES[route](request(route));
      const q = queries.find((x) => x.contract.path === path)!;
      return valueOf(await pageData(principal("admin"), queries), q);
    };
    const audit = (await first("/audit", "/api/v1/audit")) as { items: { action: string }[] };
    assert.ok(audit.items.some((e) => e.action === "settings.update"));
    const queue = (await first("/registration-requests", "/api/v1/registration-requests")) as {
      pages: { items: { name: string }[]; pending: number }[];
    };
    assert.deepEqual(
      queue.pages[0]!.items.map((r) => r.name),
      ["ssr-waiting"],
    );
    const rollout = (await first("/rollouts/[id]", "/api/v1/rollouts/{id}")) as { name: string };
    assert.equal(rollout.name, "to 1.5.0");
    assert.ok(await first("/settings", "/api/v1/settings"));
    assert.ok(await first("/rollouts/new", "/api/v1/versions"));
  });

  test("a group's gate view answers what GET /api/v1/gate answers for the same query, under the key its island uses", async () => {
    const search = new URLSearchParams({ maxUnready: "1", ignoreNotReadyLongerThan: "2h" });
    // A second cluster of the group, NotReady for a few minutes: failing, not ignored.
    await db().cluster.create({
      data: {
        id: "cl_ssr2",
        name: "ssr-2",
        phase: "Active",
        lastHeartbeatAt: new Date(Date.now() - 10 * 60_000),
        apiServerHealth: "ok",
        labels: { create: [{ key: "fleet", value: "ssr" }] },
      },
    });
    const [q] = PAGE_QUERIES["/groups/[name]/gate"]({ params: { name: "ssr" }, search });
    assert.equal(hashKey(q!.key), hashKey(queryKeys.gate({ group: "ssr", maxUnready: "1", ignoreNotReadyLongerThan: "2h" })));
    const page = valueOf(await pageData(principal("viewer"), [q!]), q!) as GateResult;
    const api = await evaluateGate(
      fleetRoutes.gate.query!.parse({ group: "ssr", maxUnready: "1", ignoreNotReadyLongerThan: "2h" }) as GateQuery,
    );
    assert.equal(page.pass, api.pass);
    assert.equal(page.summary, api.summary);
    assert.deepEqual(page.tolerance, api.tolerance);
    assert.deepEqual(
      page.clusters.map((c) => [c.name, c.reasons]),
      api.clusters.map((c) => [c.name, c.reasons]),
    );
    const failing = page.clusters.find((c) => c.name === "ssr-2");
    assert.ok(failing?.reasons.includes("status is NotReady, not Ready"), JSON.stringify(failing));
    await db().cluster.delete({ where: { id: "cl_ssr2" } });
  });

  test("the audit page asks for what its URL names, under the key its island uses", async () => {
    const search = new URLSearchParams({ action: "settings.", from: "2020-01-01T00:00:00Z" });
    const [q] = PAGE_QUERIES["/audit"]({ params: {}, search });
    // The island: useAudit(auditFilterFromSearchParams(url), undefined) on its first page.
    assert.equal(hashKey(q!.key), hashKey(queryKeys.audit.list({ ...auditFilterFromSearchParams(search), cursor: undefined })));
    const state = await pageData(principal("operator"), [q!]);
    assert.equal((valueOf(state, q!) as { items: unknown[] }).items.length, 1);

    // A filter the API refuses is the client's to show, with the API's explanation.
    const bad = PAGE_QUERIES["/audit"]({ params: {}, search: new URLSearchParams({ from: "yesterday" }) });
    assert.equal(valueOf(await pageData(principal("operator"), bad), bad[0]!), undefined);
  });

  test("a query the role may not read is left to the client", async () => {
    const queries = PAGE_QUERIES["/settings"](request("/settings"));
    for (const role of ["viewer", "operator"] as const) {
      const state = await pageData(principal(role), queries);
      const readable = queries.filter((q) => hasRole(role, q.contract.role)).map((q) => hashKey(q.key));
      assert.ok(readable.length < queries.length);
      assert.deepEqual(state.queries.map((d) => d.queryHash).sort(), readable.sort(), role);
    }
  });
});
