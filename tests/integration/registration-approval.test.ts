// Registrations waiting for approval, through the services in-process on the engine TEST_ENGINE
// picks (docs/protocol.md, "Approval"): several keys may wait for one name (one request each,
// sharing one use of a token), a token without approval cannot take a name they wait for, a
// decision by name is refused when it is not one choice, approving one denies the others, a
// revoked token's requests are denied, a denied key is refused for the cooldown whatever the token,
// and the queue pages and searches past 500 requests, and filters by token and labels.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { publicKeyFingerprint } from "@/lib/agent/csr";
import { REGISTRATION_REQUEST_TTL_DAYS, registrationRequestsQuerySchema } from "@/lib/contracts/registration-requests";
import type { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { approveRequest, denyRequest } from "@/lib/server/registration-requests/decide-request";
import { expireRequest } from "@/lib/server/registration-requests/expire-requests";
import { listRequests } from "@/lib/server/registration-requests/list-requests";
import { registerCluster, type RegisterResult } from "@/lib/server/registration/register-cluster";
import { updateSettings } from "@/lib/server/settings/settings";
import { revokeToken } from "@/lib/server/tokens/list-tokens";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { registrationBody } from "../helpers/agent-client";
import { appDatabase } from "../helpers/app-database";
import { csrForKey, makeKey } from "../helpers/csr";
import { refusal } from "../helpers/api-refusal";
import { testEngine } from "../helpers/test-database";
import { refuseWhileWaiting } from "@/lib/server/registration-requests/refuse-while-waiting";

appDatabase();

const OPERATOR: Actor = { type: "user", id: null, label: "op@example.com" };
const HOUR_MS = 3_600_000;

type Key = { privateKeyPem: string; publicKeyPem: string; fingerprint: string };
function key(): Key {
  const k = makeKey();
  return { ...k, fingerprint: publicKeyFingerprint(k.publicKeyPem) };
}

async function mint(requireApproval: boolean, maxClusters = 1) {
  return mintToken(OPERATOR, {
    name: `t-${Math.random().toString(36).slice(2, 8)}`,
    ttlSeconds: 3600,
    maxClusters,
    requireApproval,
  });
}

function register(token: string, name: string, k: Key, sourceAddress = "203.0.113.7"): Promise<RegisterResult> {
  const { body } = registrationBody(name, { csr: csrForKey(k.privateKeyPem), clusterUid: `uid-${name}` });
  return registerCluster(token, body, { sourceAddress });
}

async function pending(token: string, name: string, k: Key, sourceAddress?: string): Promise<string> {
  const r = await register(token, name, k, sourceAddress);
  assert.equal(r.kind, "pending", JSON.stringify(r));
  return (r as Extract<RegisterResult, { kind: "pending" }>).reply.requestId;
}

const used = async (tokenId: string) => (await db().registrationToken.findUniqueOrThrow({ where: { id: tokenId } })).usedClusters;
const state = async (id: string) => db().registrationRequest.findUniqueOrThrow({ where: { id } });
const query = (q: Record<string, unknown>) => registrationRequestsQuerySchema.parse(q);

describe(`approval between candidates on ${testEngine()}`, () => {
  test("several keys wait for one name, each with its own request; one token's candidates share its one use", async () => {
    const t = await mint(true, 1);
    const [k1, k2, k3] = [key(), key(), key()];
    const r1 = await pending(t.token, "contested", k1, "198.51.100.1");
    const r2 = await pending(t.token, "contested", k2, "203.0.113.66");
    assert.notEqual(r1, r2, "each key its own request");
    assert.equal(await used(t.id), 1, "a squatter with the same single-use token does not use it up");
    const t2 = await mint(true, 1);
    const r3 = await pending(t2.token, "contested", k3);
    assert.equal(await used(t2.id), 1);

    // A repeat is recognised by name and key: the same request through a token replaced meanwhile.
    assert.equal(await pending(t2.token, "contested", k1), r1);
    // The same key twice at once is one request.
    const k4 = key();
    const t3 = await mint(true, 1);
    const twice = await Promise.all([register(t3.token, "contested-twice", k4), register(t3.token, "contested-twice", k4)]);
    assert.deepEqual(
      twice.map((r) => r.kind),
      ["pending", "pending"],
    );
    assert.equal(
      (twice[0] as { reply: { requestId: string } }).reply.requestId,
      (twice[1] as { reply: { requestId: string } }).reply.requestId,
    );
    assert.equal(await used(t3.id), 1);

    const listed = await listRequests(query({ name: "contested" }));
    assert.equal(listed.items.length, 3);
    const byId = new Map(listed.items.map((r) => [r.id, r]));
    assert.equal(byId.get(r1)!.keyFingerprint, k1.fingerprint, "the fingerprint the agent prints");
    assert.equal(byId.get(r2)!.keyFingerprint, k2.fingerprint);
    assert.equal(byId.get(r2)!.sourceAddress, "203.0.113.66");
    assert.equal(byId.get(r3)!.token.id, t2.id);
    assert.equal(byId.get(r3)!.clusterUid, "uid-contested");
    assert.ok(
      listed.items.every((r) => r.pendingForName === 3),
      "each is flagged: 3 requests for this name",
    );
  });

  test("at once: eight keys for one name through one single-use token are eight requests holding one use; two approvals at once, one winner", async () => {
    const t = await mint(true, 1);
    const keys = Array.from({ length: 8 }, key);
    const answers = await Promise.all(keys.map((k) => register(t.token, "racing-keys", k)));
    assert.deepEqual(new Set(answers.map((a) => a.kind)), new Set(["pending"]));
    const ids = answers.map((a) => (a as { reply: { requestId: string } }).reply.requestId);
    assert.equal(new Set(ids).size, 8);
    assert.equal(await used(t.id), 1);

    const decisions = await Promise.allSettled([approveRequest(OPERATOR, ids[0]!), approveRequest(OPERATOR, ids[1]!)]);
    assert.equal(decisions.filter((d) => d.status === "fulfilled").length, 1, JSON.stringify(decisions));
    const lost = decisions.find((d) => d.status === "rejected") as PromiseRejectedResult;
    assert.equal((lost.reason as ApiError).code, "request_not_pending");
    assert.equal(await db().cluster.count({ where: { name: "racing-keys" } }), 1);
    assert.equal(await db().registrationRequest.count({ where: { name: "racing-keys", state: "pending" } }), 0);
    assert.equal(await used(t.id), 1, "the winner's cluster holds the one use");
  });

  test("while requests wait for a name, a token without approval cannot register it (409 cluster_conflict)", async () => {
    const t = await mint(true);
    await pending(t.token, "waited-for", key());
    const plain = await mint(false);
    const refused = await refusal(register(plain.token, "waited-for", key()));
    assert.equal(refused.code, "cluster_conflict");
    assert.match(refused.message, /waited-for is waiting for an operator's approval/);
    assert.equal(await used(plain.id), 0, "the refused registration holds nothing");
    assert.equal(await db().cluster.count({ where: { name: "waited-for" } }), 0);
  });

  test("by name: refused with the candidates when several wait; approving one by id denies the others, audited, and their agents are told", async () => {
    const ta = await mint(true, 2);
    const tb = await mint(true, 1);
    const [real, squatter, other] = [key(), key(), key()];
    const realId = await pending(ta.token, "pick-one", real);
    const squatId = await pending(ta.token, "pick-one", squatter);
    const otherId = await pending(tb.token, "pick-one", other);

    for (const decide of [() => approveRequest(OPERATOR, "pick-one"), () => denyRequest(OPERATOR, "pick-one", "no")]) {
      const ambiguous = await refusal(decide());
      assert.equal(ambiguous.code, "ambiguous_request");
      assert.equal(ambiguous.status, 409);
      const listed = (ambiguous.details as { requests: { id: string; keyFingerprint: string }[] }).requests;
      assert.deepEqual(new Set(listed.map((r) => r.id)), new Set([realId, squatId, otherId]));
      assert.equal(listed.find((r) => r.id === realId)!.keyFingerprint, real.fingerprint);
    }
    assert.equal((await refusal(approveRequest(OPERATOR, "nobody-waits"))).code, "not_found");

    const approved = await approveRequest(OPERATOR, realId);
    assert.equal(approved.state, "approved");
    for (const id of [squatId, otherId]) {
      const r = await state(id);
      assert.equal(r.state, "denied");
      assert.equal(r.reason, `another request for this name was approved: ${realId}`);
      assert.equal(r.decidedBy, OPERATOR.label);
      assert.equal(r.pendingKey, null);
    }
    assert.equal(await used(ta.id), 1, "the approved request's use is the cluster's (its fellow candidate held none of its own)");
    assert.equal(await used(tb.id), 0, "the other token's use is given back");
    const audits = await db().auditLog.findMany({
      where: { action: "registrationRequest.deny", targetId: { in: [squatId, otherId] } },
    });
    assert.equal(audits.length, 2);
    for (const a of audits) {
      const details = JSON.parse(a.details) as { reason: string; approvedRequestId: string };
      assert.equal(details.approvedRequestId, realId);
      assert.match(details.reason, /another request for this name was approved/);
      assert.equal(a.actorLabel, OPERATOR.label);
    }

    const told = await refusal(register(ta.token, "pick-one", squatter));
    assert.equal(told.code, "registration_denied");
    assert.equal(told.status, 403);
    assert.match(told.message, new RegExp(`another request for this name was approved: ${realId}`));
    const collected = await register(ta.token, "pick-one", real);
    assert.equal(collected.kind, "registered");
    assert.equal((collected as { clusterId: string }).clusterId, approved.clusterId);
  });

  test("a single candidate is still approved by name; expiry gives a shared use back only with the last candidate", async () => {
    const t = await mint(true, 1);
    const id = await pending(t.token, "only-one", key());
    assert.equal((await approveRequest(OPERATOR, "only-one")).id, id);

    const u = await mint(true, 1);
    const [a, b] = [await pending(u.token, "both-expire", key()), await pending(u.token, "both-expire", key())];
    const past = new Date(Date.now() - 1000);
    await db().registrationRequest.updateMany({ where: { id: { in: [a, b] } }, data: { expiresAt: past } });
    assert.equal(await expireRequest(a, new Date()), true);
    assert.equal(await used(u.id), 1, "the other candidate still holds it");
    assert.equal(await expireRequest(b, new Date()), true);
    assert.equal(await used(u.id), 0);
  });

  test("revoking a token denies its pending requests at once ('token revoked', audited); the agent is told 403", async () => {
    const t = await mint(true, 3);
    const k = key();
    const id = await pending(t.token, "revoked-asks", k);
    const stays = await pending((await mint(true)).token, "revoked-asks", key());
    await revokeToken(OPERATOR, t.id);
    const r = await state(id);
    assert.equal(r.state, "denied");
    assert.equal(r.reason, "token revoked");
    assert.equal(r.decidedBy, OPERATOR.label);
    assert.equal((await state(stays)).state, "pending", "another token's request is untouched");
    assert.equal(await used(t.id), 0);
    const audit = await db().auditLog.findFirst({ where: { action: "registrationRequest.deny", targetId: id } });
    assert.match(audit!.details, /token revoked/);
    const revokeAudit = await db().auditLog.findFirst({ where: { action: "token.revoke", targetId: t.id } });
    assert.match(revokeAudit!.details, new RegExp(id));

    const told = await refusal(register(t.token, "revoked-asks", k));
    assert.equal(told.code, "registration_denied");
    assert.match(told.message, /token revoked/);
    const fresh = await refusal(register(t.token, "revoked-asks", key()));
    assert.equal(fresh.code, "token_revoked", "a revoked token records nothing new");
    const plain = await refusal(register(t.token, "another-name", key()));
    assert.equal(plain.code, "token_revoked");
  });

  test("an approval and the revocation of a rival's token at once both succeed; the rival ends denied and its use given back", async () => {
    for (let round = 0; round < 3; round++) {
      const [x, y] = [await mint(true, 1), await mint(true, 1)];
      const name = `approve-revoke-${round}`;
      const a = await pending(x.token, name, key());
      const b = await pending(y.token, name, key());
      const [approved, revoked] = await Promise.allSettled([approveRequest(OPERATOR, a), revokeToken(OPERATOR, y.id)]);
      assert.equal(approved.status, "fulfilled", JSON.stringify(approved));
      assert.equal(revoked.status, "fulfilled", JSON.stringify(revoked));
      assert.equal((await state(b)).state, "denied");
      assert.equal(await used(y.id), 0);
      assert.equal(await used(x.id), 1);
    }
  });

  test("a denied key may not ask again for the name with any token during the cooldown (a setting), then may", async () => {
    const t = await mint(true, 2);
    const k = key();
    const id = await pending(t.token, "denied-key", k);
    await denyRequest(OPERATOR, id, "not one of ours");
    for (const other of [await mint(true), await mint(false)]) {
      const again = await refusal(register(other.token, "denied-key", k));
      assert.equal(again.code, "registration_denied");
      assert.match(again.message, /not one of ours/);
      assert.equal(await used(other.id), 0);
    }
    assert.equal(await db().registrationRequest.count({ where: { name: "denied-key" } }), 1, "nothing new recorded");

    // The cooldown is the fleet's setting, validated and audited like the others.
    await assert.rejects(updateSettings(OPERATOR, { deniedKeyCooldownHours: 0 }));
    await updateSettings(OPERATOR, { deniedKeyCooldownHours: 2 });
    try {
      const audit = await db().auditLog.findFirst({ where: { action: "settings.update" }, orderBy: { id: "desc" } });
      assert.match(audit!.details, /deniedKeyCooldownHours/);
      await db().registrationRequest.update({ where: { id }, data: { decidedAt: new Date(Date.now() - 3 * HOUR_MS) } });
      // The check a token without approval goes through reads the decision's time as stored.
      const { keyHash } = await db().registrationRequest.findUniqueOrThrow({ where: { id } });
      await refuseWhileWaiting("denied-key", keyHash, new Date(), 2);
      await assert.rejects(refuseWhileWaiting("denied-key", keyHash, new Date(), 4), /not one of ours/);
      const anew = await register((await mint(true)).token, "denied-key", k);
      assert.equal(anew.kind, "pending", "past the cooldown the key may ask anew");
      assert.notEqual((anew as { reply: { requestId: string } }).reply.requestId, id);
    } finally {
      await updateSettings(OPERATOR, { deniedKeyCooldownHours: 24 });
    }
  });

  test("the queue pages past 500 requests with a cursor and searches by name, fingerprint, source and token; a decision by name finds the oldest", async () => {
    const t = await mint(true, 1);
    const needle = key();
    const needleId = await pending(t.token, "needle-in-queue", needle, "192.0.2.200");
    await db().registrationRequest.update({ where: { id: needleId }, data: { firstSeenAt: new Date(Date.now() - HOUR_MS) } });
    const now = Date.now();
    await db().registrationRequest.createMany({
      data: Array.from({ length: 520 }, (_, i) => ({
        id: `rr_hay${String(i).padStart(5, "0")}`,
        name: `hay-${i}`,
        state: "pending",
        pendingKey: `hay-${i}:${String(i).padStart(64, "0")}`,
        tokenName: "hay",
        keyHash: String(i).padStart(64, "0"),
        csr: "",
        sourceAddress: "10.9.9.9",
        caFingerprint: "sha256:x",
        apiServerUrl: "https://hay.example",
        agentVersion: "1.4.0",
        firstSeenAt: new Date(now - i),
        expiresAt: new Date(now + REGISTRATION_REQUEST_TTL_DAYS * 24 * HOUR_MS),
      })),
    });
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listRequests(query({ state: "pending", limit: "500", ...(cursor ? { cursor } : {}) }));
      for (const r of page.items) {
        assert.ok(!seen.has(r.id), "no request on two pages");
        seen.add(r.id);
      }
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 2);
    assert.ok(seen.has(needleId), "the oldest request is on the second page");
    const total = await db().registrationRequest.count({ where: { state: "pending" } });
    assert.equal(seen.size, total);

    for (const q of ["needle-in", needle.fingerprint, needle.fingerprint.slice(0, 19), "192.0.2.200", t.name, t.id]) {
      const found = await listRequests(query({ q }));
      assert.ok(
        found.items.some((r) => r.id === needleId),
        `search "${q}"`,
      );
      assert.ok(found.items.length < 10, `search "${q}" narrows`);
    }
    assert.throws(() => query({ cursor: "1~cl_forged" }), /not a cursor from a previous page/);

    assert.equal((await approveRequest(OPERATOR, "needle-in-queue")).id, needleId);
  });

  test("the queue filters by token and by a label selector across its batches; each request shows its version flags and the groups it would join", async () => {
    const group = await db().clusterGroup.create({ data: { name: "gold-fleet", selector: "tier=gold" } });
    const t = await mint(true, 1);
    const now = Date.now();
    await db().registrationRequest.createMany({
      data: Array.from({ length: 610 }, (_, i) => ({
        id: `rr_lbl${String(i).padStart(5, "0")}`,
        name: `lbl-${i}`,
        state: "pending",
        pendingKey: `lbl-${i}:${String(i).padStart(64, "1")}`,
        // One in fifty is gold, spread over the whole queue (past the first 500-row batch).
        labels: JSON.stringify(i % 50 === 7 ? { tier: "gold" } : { tier: "bronze" }),
        tokenId: i % 50 === 7 ? t.id : null,
        tokenName: i % 50 === 7 ? t.name : "other",
        keyHash: String(i).padStart(64, "1"),
        csr: "",
        caFingerprint: "sha256:x",
        apiServerUrl: "https://lbl.example",
        agentVersion: "1.3.2",
        kubernetesVersion: "1.31.0",
        firstSeenAt: new Date(now - 10 * HOUR_MS - i),
        expiresAt: new Date(now + REGISTRATION_REQUEST_TTL_DAYS * 24 * HOUR_MS),
      })),
    });
    const gold = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listRequests(query({ selector: "tier=gold", limit: "5", ...(cursor ? { cursor } : {}) }));
      for (const r of page.items) {
        assert.equal(r.labels.tier, "gold");
        assert.ok(!gold.has(r.id), "no request on two pages");
        gold.add(r.id);
      }
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 20);
    assert.equal(gold.size, 13, "every gold request, across pages and batches");

    const byToken = await listRequests(query({ tokenId: t.id, limit: "100" }));
    assert.deepEqual(new Set(byToken.items.map((r) => r.id)), gold, "the token's requests are the gold ones");

    const [one] = (await listRequests(query({ name: "lbl-7" }))).items;
    assert.ok(one);
    assert.ok(one.versionFlags.includes("unsupported-kubernetes"), "agent 1.3.2 does not support Kubernetes 1.31");
    assert.deepEqual(one.joinsGroups, [{ id: group.id, name: "gold-fleet" }]);
    const [dev] = (await listRequests(query({ name: "lbl-8" }))).items;
    assert.deepEqual(dev?.joinsGroups, []);
    assert.throws(() => query({ selector: "env in (" }), /selector|label/i);
  });
});
