// The one door for directives (lib/server/agent-port/directives.ts) on the engine TEST_ENGINE
// picks: a directive is written with a payload the protocol's table accepts, and the heartbeat
// context of this instance shows it (or its withdrawal) at once after the commit, never before
// and never after a rollback.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDirective, withdrawDirectives } from "@/lib/server/agent-port/directives";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { heartbeatContext } from "@/lib/server/heartbeats/heartbeat-context";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

async function cluster(id: string) {
  await db().cluster.create({ data: { id, name: `n-${id}`, phase: "Active", registeredAt: new Date() } });
}

const openTypes = async (id: string) => (await heartbeatContext(id)).directives.map((d) => d.type);

describe(`directives' one door on ${testEngine()}`, () => {
  test("a directive is in this instance's next heartbeat answer as soon as it commits, with its payload; a rolled-back one never", async () => {
    await cluster("cl_dir1");
    assert.deepEqual(await openTypes("cl_dir1"), [], "the context is loaded (and would be served for a second)");
    const id = await inTransaction((tx, afterCommit) =>
      createDirective(tx, afterCommit, { clusterId: "cl_dir1", type: "drainNodePool", payload: { nodePool: "general" } }),
    );
    const [open] = (await heartbeatContext("cl_dir1")).directives;
    assert.deepEqual(open, { id, type: "drainNodePool", payload: '{"nodePool":"general"}' });

    await assert.rejects(
      inTransaction(async (tx, afterCommit) => {
        await createDirective(tx, afterCommit, { clusterId: "cl_dir1", type: "drain", payload: {} });
        throw new Error("rolled back");
      }),
      /rolled back/,
    );
    assert.deepEqual(await openTypes("cl_dir1"), ["drainNodePool"]);
  });

  test("a payload the table refuses is never written", async () => {
    await cluster("cl_dir2");
    await assert.rejects(
      inTransaction((tx, afterCommit) =>
        createDirective(tx, afterCommit, {
          clusterId: "cl_dir2",
          type: "upgrade",
          payload: { version: "latest" } as unknown as { version: string; image: string },
        }),
      ),
      /version|image/,
    );
    assert.equal(await db().directive.count({ where: { clusterId: "cl_dir2" } }), 0);
  });

  test("withdrawing takes back only unacknowledged directives of the named types, and shows at once", async () => {
    await cluster("cl_dir3");
    const ids = await inTransaction(async (tx, afterCommit) => [
      await createDirective(tx, afterCommit, { clusterId: "cl_dir3", type: "drain", payload: {} }),
      await createDirective(tx, afterCommit, { clusterId: "cl_dir3", type: "disconnect", payload: { reason: "deregistration" } }),
      await createDirective(tx, afterCommit, { clusterId: "cl_dir3", type: "resume", payload: {} }),
    ]);
    await db().directive.update({ where: { id: ids[1] }, data: { ackedAt: new Date() } });
    assert.deepEqual(await openTypes("cl_dir3"), ["drain", "resume"], "an acknowledged directive is no longer sent");
    const withdrawn = await inTransaction((tx, afterCommit) =>
      withdrawDirectives(tx, afterCommit, { clusterId: "cl_dir3", types: ["drain", "disconnect"] }),
    );
    assert.equal(withdrawn, 1);
    assert.deepEqual(await openTypes("cl_dir3"), ["resume"]);
    assert.equal(await db().directive.count({ where: { id: ids[1] } }), 1, "the acknowledged disconnect stays on record");
  });
});
