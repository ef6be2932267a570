// A cluster's heartbeats and the Lease claim they carry (docs/protocol.md, "Lease holder"): the
// newest claim is kept on the cluster's row; a heartbeat from an agent whose Lease was taken
// over since is refused with 409 stale_lease_holder and leaves nothing recorded; an agent
// restart, a takeover and a re-created Lease are accepted.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import type { AgentIdentity } from "@/lib/server/agent-port/agent-identity";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { recordHeartbeat } from "@/lib/server/heartbeats/record-heartbeat";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const CREATED = "2026-12-06T08:00:00Z";

async function cluster(id: string) {
  await db().cluster.create({ data: { id, name: id.replace(/_/g, "-"), phase: "Active", registeredAt: new Date() } });
  await db().directive.create({ data: { id: `${id}-d1`, clusterId: id, type: "resume", payload: "{}" } });
  const identity: AgentIdentity = {
    clusterId: id,
    serial: "01",
    fingerprint: "sha256:" + "0".repeat(64),
    firstUse: false,
    notAfter: new Date(Date.now() + 86_400_000),
    expired: false,
    issuerFingerprint: null,
  };
  const beat = (lease: { holder: string; transitions: number; createdAt?: string } | undefined, pods = 5, acks: string[] = []) =>
    recordHeartbeat(identity, {
      agentVersion: "1.4.0",
      health: { apiServer: pods ? "ok" : "down", logs: true, metrics: true },
      workloads: { pods, namespaces: 2 },
      acks,
      ...(lease ? { lease } : {}),
    });
  const stored = async () => {
    await flushHeartbeats(true);
    const row = await db().cluster.findUniqueOrThrow({ where: { id } });
    return {
      holder: row.leaseHolder,
      transitions: row.leaseTransitions,
      createdAt: row.leaseCreatedAt?.toISOString(),
      pods: row.podCount,
    };
  };
  const refused = (p: Promise<unknown>) =>
    assert.rejects(p, (err) => err instanceof ApiError && err.code === "stale_lease_holder" && err.status === 409);
  return { beat, stored, refused };
}

describe(`the Lease holder a cluster's heartbeats carry, on ${testEngine()}`, () => {
  test("after a takeover the old holder's heartbeats are refused and record nothing; restarts are accepted", async () => {
    const { beat, stored, refused } = await cluster("cl_lease_takeover");
    await beat({ holder: "agent-a", transitions: 1, createdAt: CREATED });
    assert.deepEqual(await stored(), { holder: "agent-a", transitions: 1, createdAt: "2026-12-06T08:00:00.000Z", pods: 5 });
    // The same agent again (a container restart in the same pod: same holder, same count).
    await beat({ holder: "agent-a", transitions: 1, createdAt: CREATED });

    // agent-a lost its API server; agent-b took the Lease over and heartbeats.
    await beat({ holder: "agent-b", transitions: 2, createdAt: CREATED }, 7);
    assert.deepEqual(await stored(), { holder: "agent-b", transitions: 2, createdAt: "2026-12-06T08:00:00.000Z", pods: 7 });

    // agent-a still heartbeats (API server down): refused, and nothing of it is recorded.
    await refused(beat({ holder: "agent-a", transitions: 1, createdAt: CREATED }, 0, ["cl_lease_takeover-d1"]));
    const after = await stored();
    assert.equal(after.holder, "agent-b");
    assert.equal(after.pods, 7, "the stale heartbeat's facts are not the cluster's");
    const d = await db().directive.findUniqueOrThrow({ where: { id: "cl_lease_takeover-d1" } });
    assert.equal(d.ackedAt, null, "nor are its acks");
    // The same count under another holder: the one on record stays.
    await refused(beat({ holder: "agent-c", transitions: 2, createdAt: CREATED }));

    // Heartbeats without a claim (an agent without a Lease, an older agent) are not checked.
    await beat(undefined);
    // agent-b keeps heartbeating, and a later takeover by agent-a again is accepted.
    await beat({ holder: "agent-b", transitions: 2, createdAt: CREATED });
    await beat({ holder: "agent-a", transitions: 3, createdAt: CREATED });
    assert.equal((await stored()).holder, "agent-a");
  });

  test("a Lease deleted and created again (its count starts anew) is newer; the old Lease's holder is refused", async () => {
    const { beat, stored, refused } = await cluster("cl_lease_recreated");
    await beat({ holder: "agent-a", transitions: 5, createdAt: CREATED });
    await beat({ holder: "agent-b", transitions: 0, createdAt: "2026-12-06T09:30:00Z" });
    assert.deepEqual(await stored(), { holder: "agent-b", transitions: 0, createdAt: "2026-12-06T09:30:00.000Z", pods: 5 });
    await refused(beat({ holder: "agent-a", transitions: 5, createdAt: CREATED }));
    await refused(beat({ holder: "agent-a", transitions: 6, createdAt: CREATED }));
  });
});
