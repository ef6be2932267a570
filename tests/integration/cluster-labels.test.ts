// The one door for a cluster's labels (lib/server/clusters/cluster-labels.ts) on the engine
// TEST_ENGINE picks: every label change, the new-cluster path's included, recomputes the desired
// policy revisions of the clusters it changed once committed, and a rolled-back change none.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { auditRow, type Actor } from "@/lib/server/audit/record-audit";
import { changeClusterLabels, replaceClusterLabels } from "@/lib/server/clusters/cluster-labels";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { createGroup } from "@/lib/server/groups/groups";
import { createPolicy, recomputeDesiredRevisions } from "@/lib/server/policies/policies";
import { writeNewCluster, type NewCluster } from "@/lib/server/registration/write-new-cluster";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { ApiError } from "@/lib/server/api/errors";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ACTOR: Actor = { type: "user", id: null, label: "ops@example.com" };
const PROD = "baseline:1";

async function cluster(id: string, labels: Record<string, string>) {
  await db().cluster.create({
    data: {
      id,
      name: `n-${id}`,
      phase: "Active",
      registeredAt: new Date(),
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
    },
  });
}

const desired = async (id: string) =>
  (await db().cluster.findUniqueOrThrow({ where: { id }, select: { desiredPolicyRevision: true } })).desiredPolicyRevision;

describe(`cluster labels' one door on ${testEngine()}`, () => {
  before(async () => {
    const group = await createGroup(ACTOR, { name: "prod", selector: "env=prod" });
    await createPolicy(ACTOR, { name: "baseline", groupIds: [group.id], content: { podSecurity: "restricted" } });
  });

  test("replacing labels recomputes the cluster's desired revision after the commit; a rollback changes nothing", async () => {
    await cluster("cl_lab1", { env: "dev" });
    assert.equal(await desired("cl_lab1"), null);
    await inTransaction((tx, afterCommit) =>
      replaceClusterLabels(tx, afterCommit, [{ clusterId: "cl_lab1", labels: { env: "prod" } }]),
    );
    assert.equal(await desired("cl_lab1"), PROD);

    await assert.rejects(
      inTransaction(async (tx, afterCommit) => {
        await replaceClusterLabels(tx, afterCommit, [{ clusterId: "cl_lab1", labels: {} }]);
        throw new Error("changed my mind");
      }),
      /changed my mind/,
    );
    assert.deepEqual(await db().clusterLabel.findMany({ where: { clusterId: "cl_lab1" }, select: { key: true, value: true } }), [
      { key: "env", value: "prod" },
    ]);
    assert.equal(await desired("cl_lab1"), PROD);
  });

  test("setting and removing labels on many clusters recomputes each of them", async () => {
    await cluster("cl_lab2", { env: "prod", team: "a" });
    await cluster("cl_lab3", { env: "prod" });
    await recomputeDesiredRevisions(["cl_lab2", "cl_lab3"]);
    assert.equal(await desired("cl_lab2"), PROD);
    await inTransaction((tx, afterCommit) =>
      changeClusterLabels(tx, afterCommit, ["cl_lab2", "cl_lab3"], { set: { tier: "1" }, remove: ["env"] }),
    );
    for (const id of ["cl_lab2", "cl_lab3"]) assert.equal(await desired(id), null, id);
    const labels = await db().clusterLabel.findMany({
      where: { clusterId: "cl_lab2" },
      orderBy: { key: "asc" },
      select: { key: true },
    });
    assert.deepEqual(
      labels.map((l) => l.key),
      ["team", "tier"],
      "other labels stay",
    );
  });

  test("a new cluster written in one statement gets its desired revision before writeNewCluster returns", async () => {
    await writeNewCluster(newCluster("cl_lab4", "n-cl_lab4", { tokenId: null, tokenUse: "held" }));
    assert.equal(await desired("cl_lab4"), PROD);
  });

  test("a name taken meanwhile: cluster_conflict, and nothing of the second registration stays (its token use neither)", async () => {
    const token = await mintToken(ACTOR, { name: "race", ttlSeconds: 3600, maxClusters: 5 });
    await writeNewCluster(newCluster("cl_lab5", "n-race", { tokenId: token.id }));
    await assert.rejects(writeNewCluster(newCluster("cl_lab6", "n-race", { tokenId: token.id })), (err: unknown) => {
      assert.ok(err instanceof ApiError && err.code === "cluster_conflict", String(err));
      return true;
    });
    const used = await db().registrationToken.findUniqueOrThrow({ where: { id: token.id }, select: { usedClusters: true } });
    assert.equal(used.usedClusters, 1);
    assert.equal(await db().certificate.count({ where: { clusterId: "cl_lab6" } }), 0);
    assert.equal(await db().clusterLabel.count({ where: { clusterId: "cl_lab6" } }), 0);
    assert.equal(await db().auditLog.count({ where: { targetId: "cl_lab6" } }), 0);
  });
});

/** What registration writes for a new cluster, with a made-up certificate (its text is not read here). */
function newCluster(id: string, name: string, token: Pick<NewCluster, "tokenId" | "tokenUse">): NewCluster {
  const now = new Date();
  return {
    ...token,
    now,
    cluster: {
      id,
      name,
      caFingerprint: `sha256:${"a".repeat(64)}`,
      apiServerUrl: "https://api.example:6443",
      agentVersion: "1.4.0",
      kubernetesVersion: "1.30.2",
      clusterUid: null,
    },
    labels: { env: "prod" },
    certificate: {
      serial: `0a${id.slice(-2)}`,
      clusterId: id,
      fingerprint: `sha256:${id.slice(-1).repeat(64)}`,
      pem: "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000),
      issuerFingerprint: `sha256:${"c".repeat(64)}`,
    },
    phase: { clusterId: id, clusterName: name, from: null, to: "Registration", reason: "registered", at: now },
    audit: auditRow(ACTOR, "cluster.register", { type: "cluster", id }),
    attempt: null,
  };
}
