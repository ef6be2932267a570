// The cluster list by agent and Kubernetes version (lib/server/clusters/cluster-list-sql.ts) on the
// engine TEST_ENGINE picks: sorted in version order, not string order (1.9 before 1.10, a leading
// v and a provider's suffix read as the version), clusters without one last either way; filtered
// by a version or its start (1.30 is 1.30.x, never 1.3 or 1.300); a bad filter is a 400.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { listClustersQuerySchema } from "@/lib/contracts/clusters";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { db } from "@/lib/server/db/client";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

const engine = testEngine();
appDatabase();

const CLUSTERS: [string, string | null, string | null][] = [
  ["v-a", "1.10.0", "v1.30.2"],
  ["v-b", "1.9.3", "1.3.9"],
  ["v-c", "1.4.0", "1.300.0"],
  ["v-d", null, null],
  ["v-e", "1.4.1-rc.1", "v1.30.10-gke.1200"],
  ["v-f", "2.0.0", "1.29.9"],
];

const names = async (q: Record<string, string>) =>
  (await listClusters(parseWith(listClustersQuerySchema, { selector: "fleet=versions", ...q }, "query"))).items.map(
    (c) => c.name,
  );

describe(`the cluster list by version on ${engine}`, () => {
  test("setup", async () => {
    for (const [name, agentVersion, kubernetesVersion] of CLUSTERS)
      await db().cluster.create({
        data: {
          id: `cl_${name}`,
          name,
          phase: "Active",
          agentVersion,
          kubernetesVersion,
          labels: { create: [{ key: "fleet", value: "versions" }] },
        },
      });
  });

  test("sorts by agent version in version order, without one last either way", async () => {
    assert.deepEqual(await names({ sort: "agentVersion" }), ["v-c", "v-e", "v-b", "v-a", "v-f", "v-d"]);
    assert.deepEqual(await names({ sort: "agentVersion", order: "desc" }), ["v-f", "v-a", "v-b", "v-e", "v-c", "v-d"]);
  });

  test("sorts by Kubernetes version in version order, a leading v and a suffix read as the version", async () => {
    assert.deepEqual(await names({ sort: "kubernetesVersion" }), ["v-b", "v-f", "v-a", "v-e", "v-c", "v-d"]);
  });

  test("filters by a version or its start", async () => {
    assert.deepEqual(await names({ kubernetesVersion: "1.30" }), ["v-a", "v-e"]);
    assert.deepEqual(await names({ kubernetesVersion: "v1.30.2" }), ["v-a"]);
    assert.deepEqual(await names({ agentVersion: "1.4" }), ["v-c", "v-e"]);
    assert.deepEqual(await names({ agentVersion: "1.4.0" }), ["v-c"]);
    assert.deepEqual(await names({ agentVersion: "1" }), ["v-a", "v-b", "v-c", "v-e"]);
  });

  test("a filter that is no version is a 400 that says what to give", () => {
    assert.throws(
      () => parseWith(listClustersQuerySchema, { agentVersion: "1.4%" }, "query"),
      (err: unknown) => err instanceof ApiError && err.status === 400 && /e\.g\. 1\.30/.test(JSON.stringify(err.details)),
    );
  });
});
