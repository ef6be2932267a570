import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { ApiRequestError, fetchJson } from "@/lib/client/fetch-json";

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});
const answer = (body: unknown, status = 200) => {
  globalThis.fetch = async () => Response.json(body, { status });
};

const item = {
  id: "c1",
  name: "prod-eu",
  status: "Ready",
  phase: "Active",
  labels: { env: "prod" },
  lastHeartbeatAt: "2026-12-01T00:00:00.000Z",
  agentVersion: "1.4.0",
  kubernetesVersion: "1.30.2",
  registeredAt: "2026-11-30T00:00:00.000Z",
  reasons: [],
  nodeCount: 3,
  notReadySince: null,
  enrolledAt: "2026-11-30T00:05:00.000Z",
  enrollmentBlockedOn: [],
  owner: null,
  notes: null,
  snooze: null,
};
const list = {
  items: [item],
  nextCursor: null,
  total: 1,
  totalCapped: false,
  notReadyThresholdSeconds: 60,
  now: item.lastHeartbeatAt,
};

test("outside production an answer is parsed with the route's declared response: registeredAt reaches the console", async () => {
  answer(list);
  const got = await fetchJson(clusterRoutes.list.path, { schema: clusterRoutes.list.response });
  assert.equal(got.items[0]!.registeredAt, "2026-11-30T00:00:00.000Z");
});

test("an answer that drifted from its contract fails loudly instead of being cast", async () => {
  const { registeredAt: _, ...drifted } = item;
  answer({ ...list, items: [drifted] });
  await assert.rejects(
    fetchJson(clusterRoutes.list.path, { schema: clusterRoutes.list.response }),
    (err: unknown) =>
      err instanceof ApiRequestError && err.code === "contract_mismatch" && /items\.0\.registeredAt/.test(err.message),
  );
});

test("error bodies still become ApiRequestError with the server's code", async () => {
  answer({ error: "forbidden", message: "no" }, 403);
  await assert.rejects(fetchJson(clusterRoutes.list.path, { schema: clusterRoutes.list.response }), {
    code: "forbidden",
    status: 403,
  });
});
