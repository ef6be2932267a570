// Registrations that wait for an operator's approval (docs/protocol.md, "Approval"): a token
// minted with requireApproval records a new cluster as a pending request (202, Retry-After), the
// agent's repeats are answered from it (202, then 201 once approved, 403 once denied, 410 once
// expired), several keys may wait for one name (approving one denies the others), and
// approve/deny are one conditional change each, so exactly one of two at once wins.
// Against the real server over real TLS, on the engine TEST_ENGINE selects.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { csrForKey, makeKey } from "../helpers/csr";
import { heartbeatBody, mintToken, registerWith, registrationBody, rideOut, type AgentResponse } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { until } from "../helpers/until";
import { FleetAgent } from "@/lib/agent/agent";
import { systemClock } from "@/lib/agent/clock";
import { MemoryLogger } from "@/lib/agent/log";
import { MemoryStateStore } from "@/lib/agent/state";
import { simulatedBackend } from "@/lib/agent/simulator/simulated-backend";
import { staticTokenSource } from "@/lib/agent/token";

const run = promisify(execFile);
let server: FleetServer;

before(async () => {
  server = await startFleetServer({ REGISTRATION_RATE_PER_MINUTE: "6000", REGISTRATION_RATE_BURST: "1000" });
  // A receiver nobody listens on: the deliveries are counted in the outbox, not received.
  assert.equal((await server.api("PATCH", "/api/v1/settings", { webhookAllowPrivateTargets: true })).status, 200);
  const hook = await server.api("POST", "/api/v1/webhooks", {
    url: "http://127.0.0.1:9/fleet",
    events: ["registration.pendingApproval"],
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
});
after(async () => {
  await server?.stop();
});

type Token = { id: string; token: string; usedClusters: number; requireApproval: boolean };
const mint = (body: Record<string, unknown> = {}) => mintToken(server, { requireApproval: true, ...body }) as Promise<Token>;

async function usedClusters(tokenId: string): Promise<number> {
  const res = await server.api("GET", "/api/v1/registration-tokens");
  return res.body.items.find((t: Token) => t.id === tokenId).usedClusters;
}

/** POST /register with this key (the agent keeps it across its repeats); a 503 overloaded is ridden out. */
function register(token: string, name: string, key: string, extra: Record<string, unknown> = {}): Promise<AgentResponse> {
  const { body } = registrationBody(name, { csr: csrForKey(key), ...extra });
  return rideOut(() => registerWith(server, token, body), Date.now() + 60_000);
}

const request = async (id: string) => (await server.api("GET", `/api/v1/registration-requests/${id}`)).body;
const approve = (id: string) => server.api("POST", `/api/v1/registration-requests/${id}/approve`, {});
const deny = (id: string, reason: string) => server.api("POST", `/api/v1/registration-requests/${id}/deny`, { reason });

/** Sets a time column of one row (SQLite keeps DateTime as milliseconds). */
async function setTime(table: string, column: string, id: string, at: Date) {
  if (server.db.engine === "sqlite")
    await server.db.query(`UPDATE "${table}" SET "${column}" = ? WHERE id = ?`, [at.getTime(), id]);
  else await server.db.query(`UPDATE "${table}" SET "${column}" = $1 WHERE id = $2`, [at, id]);
}

async function countRows(sqlite: string, postgres: string, params: unknown[]): Promise<number> {
  const rows = await server.db.query<{ n: unknown }>(server.db.engine === "sqlite" ? sqlite : postgres, params);
  return Number(rows[0]?.n);
}

/** Many pending requests at once (each its own name and key), newer than any recorded before. */
async function seedPending(count: number) {
  const now = Date.now();
  const sqlite = server.db.engine === "sqlite";
  const at = (ms: number) => (sqlite ? ms : new Date(ms));
  const params: unknown[] = [];
  const rows = Array.from({ length: count }, (_, i) => {
    const id = `rr_seed${String(i).padStart(6, "0")}`;
    const hash = String(i).padStart(64, "0");
    const values = [id, `seed-${i}`, `seed-${i}:${hash}`, hash, at(now + i), at(now + i), at(now + 86_400_000)];
    const first = params.length;
    params.push(...values);
    const marks = values.map((_, k) => (sqlite ? "?" : `$${first + k + 1}`));
    return `(${marks.join(", ")}, 'pending', 'seed', '', 'sha256:x', 'https://seed.example', '1.4.0')`;
  });
  await server.db.query(
    `INSERT INTO "RegistrationRequest" (id, name, "pendingKey", "keyHash", "firstSeenAt", "lastSeenAt", "expiresAt", state, "tokenName", csr, "caFingerprint", "apiServerUrl", "agentVersion") VALUES ${rows.join(", ")}`,
    params,
  );
}

/** A fresh key's request recorded as pending: the 202 checked, its request id returned. */
async function pending(token: Token, name: string) {
  const key = makeKey().privateKeyPem;
  const res = await register(token.token, name, key);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return { key, requestId: res.body.requestId as string };
}

describe("registration waiting for approval", () => {
  test("202 with Retry-After, the same request on a repeat (even past the token's expiry), then 201 once approved", async () => {
    const t = await mint({ maxClusters: 1, fixedLabels: { env: "prod" } });
    assert.equal(t.requireApproval, true);
    const key = makeKey().privateKeyPem;

    const first = await register(t.token, "approved-one", key, {
      labels: { region: "eu-west-1" },
      clusterUid: "uid-approved-one",
    });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.equal(first.body.status, "pending_approval");
    assert.match(first.body.requestId, /^rr_/);
    assert.equal(first.body.retryAfterSeconds, 15);
    assert.equal(first.headers["retry-after"], "15");
    const requestId = first.body.requestId as string;
    assert.equal(await usedClusters(t.id), 1, "the pending request holds the token's use");

    const again = await register(t.token, "approved-one", key);
    assert.equal(again.status, 202);
    assert.equal(again.body.requestId, requestId, "a repeat is the same request");

    // The token runs out while the request waits: the request was checked when recorded.
    await setTime("RegistrationToken", "expiresAt", t.id, new Date(Date.now() - 1000));
    const late = await register(t.token, "approved-one", key);
    assert.equal(late.status, 202, JSON.stringify(late.body));
    assert.equal(late.body.requestId, requestId);

    const listed = await server.api("GET", "/api/v1/registration-requests?state=pending");
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.ok(listed.body.pending >= 1);
    const view = listed.body.items.find((r: { id: string }) => r.id === requestId);
    assert.deepEqual(view.labels, { env: "prod", region: "eu-west-1" }, "the token's fixed labels applied");
    assert.equal(view.token.id, t.id);
    assert.equal(view.clusterUid, "uid-approved-one");
    assert.ok(!JSON.stringify(listed.body).includes("CERTIFICATE REQUEST"), "the CSR is not shown");

    // Recorded once: one attempt-log entry, one webhook, however many repeats.
    const attempts = await server.api("GET", `/api/v1/registration-attempts?result=pending_approval&tokenId=${t.id}`);
    assert.equal(attempts.body.items.length, 1, JSON.stringify(attempts.body));
    const hooks = await countRows(
      `SELECT COUNT(*) AS n FROM "WebhookDelivery" WHERE "eventType" = 'registration.pendingApproval' AND payload LIKE ?`,
      `SELECT COUNT(*) AS n FROM "WebhookDelivery" WHERE "eventType" = 'registration.pendingApproval' AND payload LIKE $1`,
      [`%${requestId}%`],
    );
    assert.equal(hooks, 1, "the webhook is enqueued once per request");
    const [delivery] = await server.db.query<{ payload: string }>(
      server.db.engine === "sqlite"
        ? `SELECT payload FROM "WebhookDelivery" WHERE payload LIKE ?`
        : `SELECT payload FROM "WebhookDelivery" WHERE payload LIKE $1`,
      [`%${requestId}%`],
    );
    const payload = JSON.parse(delivery!.payload);
    assert.equal(payload.type, "registration.pendingApproval");
    assert.deepEqual(
      { ...payload.data, sourceAddress: undefined },
      {
        requestId,
        name: "approved-one",
        tokenId: t.id,
        tokenName: "test",
        labels: { env: "prod", region: "eu-west-1" },
        link: "/registration-requests",
        sourceAddress: undefined,
      },
    );

    const approved = await approve(requestId);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.state, "approved");
    assert.equal(approved.body.decidedBy, "admin@example.com");
    const clusterId = approved.body.clusterId as string;
    assert.match(clusterId, /^cl_/);
    assert.equal(await usedClusters(t.id), 1, "the approval spends no second use");

    const collected = await register(t.token, "approved-one", key);
    assert.equal(collected.status, 201, JSON.stringify(collected.body));
    assert.equal(collected.body.clusterId, clusterId);
    const cert = new X509Certificate(collected.body.certificate);
    assert.match(cert.subject, new RegExp(`CN=${clusterId}`));
    assert.equal(collected.body.heartbeatPath, "/api/agent/v1/heartbeat");
    assert.ok(collected.body.caCertificate.includes("BEGIN CERTIFICATE"));
    const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), {
      client: { cert: collected.body.certificate, key },
    });
    assert.equal(hb.status, 200, JSON.stringify(hb.body));
    assert.equal((await request(requestId)).state, "completed");

    const cluster = await server.api("GET", `/api/v1/clusters/${clusterId}`);
    assert.equal(cluster.status, 200);
    assert.equal(cluster.body.name, "approved-one");
    assert.deepEqual(cluster.body.labels, { env: "prod", region: "eu-west-1" });
    const clusters = await server.api("GET", "/api/v1/clusters?q=approved-one");
    assert.ok(
      clusters.body.items.some((c: { id: string }) => c.id === clusterId),
      "the cluster is listed",
    );
    const audit = await server.api("GET", `/api/v1/audit?action=cluster.register&target=${clusterId}`);
    assert.equal(audit.body.items[0]?.details.approvedBy, "admin@example.com");
    assert.equal(audit.body.items[0]?.details.requestId, requestId);

    // A re-registration with its kept key needs no approval (and a valid token).
    const t2 = await mint();
    const rereg = await register(t2.token, "approved-one", key);
    assert.equal(rereg.status, 201, JSON.stringify(rereg.body));
    assert.equal(rereg.body.clusterId, clusterId);
  });

  test("the reference agent waits with one line, repeats the same request, registers once approved and reports its clusterUid; a denied one stops with the reason", async () => {
    // Real waits, shortened: the agent honours Retry-After, the test need not sit through it.
    const clock = {
      now: () => Date.now(),
      sleep: (ms: number, signal?: AbortSignal) => systemClock.sleep(Math.min(ms, 200), signal),
    };
    const agentFor = (name: string, token: string, logger: MemoryLogger, hooks = {}) =>
      new FleetAgent({
        server: server.agentUrl,
        name,
        labels: { env: "prod", region: "eu-west-1" },
        store: new MemoryStateStore(name),
        trust: { caPem: server.caPem },
        token: staticTokenSource(token),
        clusterCaFingerprint: `sha256:${"c".repeat(64)}`,
        cluster: simulatedBackend({ name, clusterUid: "7d3e2f10-aaaa-4bbb-8ccc-123456789abc" }),
        clock,
        logger,
        hooks,
      });
    const t = await mint({ maxClusters: 1 });
    const logger = new MemoryLogger();
    const agent: FleetAgent = agentFor("agent-waits", t.token, logger, { onHeartbeat: () => agent.stop() });
    const running = agent.run();
    const waiting = await until("the agent's request is pending", async () => {
      const list = await server.api("GET", "/api/v1/registration-requests?state=pending");
      return list.body.items?.find((r: { name: string }) => r.name === "agent-waits");
    });
    assert.equal(waiting.clusterUid, "7d3e2f10-aaaa-4bbb-8ccc-123456789abc");
    await new Promise((r) => setTimeout(r, 600)); // a few repeats
    assert.equal((await approve(waiting.id)).status, 200);
    const result = await running;
    assert.equal(result.outcome, "stopped", JSON.stringify(result));
    assert.ok(agent.clusterId);
    const lines = logger.entries.filter((e) => e.code === "APPROVAL_PENDING");
    assert.equal(lines.filter((e) => e.level === "info").length, 1, "one line, whatever the repeats");
    // The key's fingerprint with every 202, as the queue shows it: the installer tells its request by it.
    assert.equal(
      lines[0]!.message,
      `waiting for an operator to approve registration request ${waiting.id} in the console; this agent's key is ${waiting.keyFingerprint}`,
    );
    assert.ok(
      lines.every((e) => e.fields?.key === waiting.keyFingerprint),
      "every repeat names the key",
    );
    assert.equal(logger.entries.find((e) => e.code === "REGISTERING")?.fields?.key, waiting.keyFingerprint, "and at start");
    assert.ok(lines.length >= 2, "it asked again");
    const c = (await server.api("GET", `/api/v1/clusters/${agent.clusterId}`)).body;
    assert.equal(c.clusterUid, "7d3e2f10-aaaa-4bbb-8ccc-123456789abc");

    const t2 = await mint({ maxClusters: 1 });
    const deniedLog = new MemoryLogger();
    const denied = agentFor("agent-denied", t2.token, deniedLog).run();
    const second = await until("the second request is pending", async () => {
      const list = await server.api("GET", "/api/v1/registration-requests?state=pending");
      return list.body.items?.find((r: { name: string }) => r.name === "agent-denied");
    });
    assert.equal((await deny(second.id, "a copy of agent-waits")).status, 200);
    const end = await denied;
    assert.equal(end.outcome, "rejected");
    assert.equal(end.exitCode, 3);
    assert.equal(end.code, "REGISTRATION_DENIED");
    assert.match(
      deniedLog.entries.find((e) => e.code === "REGISTRATION_DENIED")!.message,
      /the operator's reason: .*a copy of agent-waits/,
    );
  });

  test("denied: 403 registration_denied with the operator's reason, and the token's use is released", async () => {
    const t = await mint({ maxClusters: 1 });
    const { key, requestId } = await pending(t, "denied-one");
    assert.equal(await usedClusters(t.id), 1);
    const denied = await deny(requestId, "not one of ours");
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
    assert.equal(denied.body.state, "denied");
    assert.equal(denied.body.reason, "not one of ours");
    assert.equal(await usedClusters(t.id), 0, "the use is given back");

    const told = await register(t.token, "denied-one", key);
    assert.equal(told.status, 403, JSON.stringify(told.body));
    assert.equal(told.body.error, "registration_denied");
    assert.match(told.body.message, /not one of ours/);
    assert.equal((await server.api("GET", "/api/v1/clusters?q=denied-one")).body.items.length, 0);

    const twice = await deny(requestId, "again");
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error, "request_not_pending");
    assert.equal((await server.api("POST", "/api/v1/registration-requests/rr_nope/deny", { reason: "x" })).status, 404);
    assert.equal(
      (await server.api("POST", `/api/v1/registration-requests/${requestId}/deny`, {})).status,
      400,
      "a reason is required",
    );
  });

  test("revoking the token denies its waiting requests: the agent is told 403 'token revoked', and the key waits out the cooldown", async () => {
    const t = await mint({ maxClusters: 1 });
    const { key, requestId } = await pending(t, "revoked-while-waiting");
    const revoked = await server.api("DELETE", `/api/v1/registration-tokens/${t.id}`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const view = await request(requestId);
    assert.equal(view.state, "denied");
    assert.equal(view.reason, "token revoked");
    const told = await register(t.token, "revoked-while-waiting", key);
    assert.equal(told.status, 403, JSON.stringify(told.body));
    assert.equal(told.body.error, "registration_denied");
    assert.match(told.body.message, /token revoked/);
    const another = await register((await mint()).token, "revoked-while-waiting", key);
    assert.equal(another.status, 403, "a denied key may not ask again with another token during the cooldown");
  });

  test("a request pending more than its 7 days is 410 registration_request_expired and gives its use back", async () => {
    const t = await mint({ maxClusters: 1 });
    const { key, requestId } = await pending(t, "expired-one");
    await setTime("RegistrationRequest", "expiresAt", requestId, new Date(Date.now() - 1000));
    const gone = await register(t.token, "expired-one", key);
    assert.equal(gone.status, 410, JSON.stringify(gone.body));
    assert.equal(gone.body.error, "registration_request_expired");
    assert.equal((await request(requestId)).state, "expired");
    assert.equal(await usedClusters(t.id), 0);
    const late = await approve(requestId);
    assert.equal(late.status, 409);
    assert.equal(late.body.error, "request_not_pending");
  });

  test("another key for a name already pending gets its own request; a token without approval is refused the name", async () => {
    const t = await mint({ maxClusters: 1 });
    const { requestId } = await pending(t, "contested");
    const other = await register(t.token, "contested", makeKey().privateKeyPem);
    assert.equal(other.status, 202, JSON.stringify(other.body));
    assert.notEqual(other.body.requestId, requestId);
    assert.equal(await usedClusters(t.id), 1, "one token's candidates for a name share its use");
    assert.equal((await request(requestId)).state, "pending");
    assert.equal((await request(other.body.requestId)).pendingForName, 2);

    const plain = await mintToken(server, { requireApproval: false });
    const direct = await register(plain.token, "contested", makeKey().privateKeyPem);
    assert.equal(direct.status, 409, JSON.stringify(direct.body));
    assert.equal(direct.body.error, "cluster_conflict");
    assert.match(direct.body.message, /waiting for an operator's approval/);

    const byName = await approve("contested");
    assert.equal(byName.status, 409, JSON.stringify(byName.body));
    assert.equal(byName.body.error, "ambiguous_request");
    assert.deepEqual(
      new Set(byName.body.details.requests.map((r: { id: string }) => r.id)),
      new Set([requestId, other.body.requestId]),
    );
  });

  test("at once: the same agent twice is one request; two keys for one name are two requests", async () => {
    const t = await mint({ maxClusters: 1 });
    const key = makeKey().privateKeyPem;
    const same = await Promise.all([register(t.token, "twice-at-once", key), register(t.token, "twice-at-once", key)]);
    assert.deepEqual(
      same.map((r) => r.status),
      [202, 202],
      JSON.stringify(same.map((r) => r.body)),
    );
    assert.equal(same[0]!.body.requestId, same[1]!.body.requestId);
    assert.equal(await usedClusters(t.id), 1);

    const u = await mint({ maxClusters: 1 });
    const rivals = await Promise.all([
      register(u.token, "rivals-at-once", makeKey().privateKeyPem),
      register(u.token, "rivals-at-once", makeKey().privateKeyPem),
    ]);
    assert.deepEqual(
      rivals.map((r) => r.status),
      [202, 202],
      JSON.stringify(rivals.map((r) => r.body)),
    );
    assert.notEqual(rivals[0]!.body.requestId, rivals[1]!.body.requestId);
    assert.equal(await usedClusters(u.id), 1, "they share the token's one use");
  });

  test("checked in full before it is recorded: labels outside the scope and missing required labels are refused", async () => {
    const t = await mint({ maxClusters: 3, allowedLabels: { env: ["dev"], region: "*" } });
    const outside = await register(t.token, "scoped", makeKey().privateKeyPem, { labels: { env: "prod", region: "eu" } });
    assert.equal(outside.status, 403);
    assert.equal(outside.body.error, "label_not_allowed");
    const missing = await register(t.token, "scoped", makeKey().privateKeyPem, { labels: { env: "dev" } });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.error, "missing_required_labels");
    const badCsr = await rideOut(
      () =>
        registerWith(
          server,
          t.token,
          registrationBody("scoped", { csr: "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----" })
            .body,
        ),
      Date.now() + 60_000,
    );
    assert.equal(badCsr.status, 400);
    assert.equal(badCsr.body.error, "invalid_csr");
    assert.equal(await usedClusters(t.id), 0);
    assert.equal(
      (await server.api("GET", "/api/v1/registration-requests")).body.items.filter((r: { name: string }) => r.name === "scoped")
        .length,
      0,
    );
  });

  test("approve and deny at once: exactly one wins, the other is 409 request_not_pending", async () => {
    for (let round = 0; round < 3; round++) {
      const t = await mint({ maxClusters: 1 });
      const name = `race-${round}`;
      const { requestId } = await pending(t, name);
      const [a, d] = await Promise.all([approve(requestId), deny(requestId, "raced")]);
      const statuses = [a.status, d.status].sort();
      assert.deepEqual(statuses, [200, 409], `${JSON.stringify(a.body)} / ${JSON.stringify(d.body)}`);
      const loser = a.status === 409 ? a : d;
      assert.equal(loser.body.error, "request_not_pending");
      const final = await request(requestId);
      const clusters = (await server.api("GET", `/api/v1/clusters?q=${name}`)).body.items;
      if (a.status === 200) {
        assert.equal(final.state, "approved");
        assert.equal(clusters.length, 1);
        assert.equal(await usedClusters(t.id), 1);
      } else {
        assert.equal(final.state, "denied");
        assert.equal(clusters.length, 0, "a denied request created no cluster");
        assert.equal(await usedClusters(t.id), 0);
      }
    }
  });

  test("approving when the name was taken meanwhile is 409 cluster_conflict with the reason; the request stays pending", async () => {
    const t = await mint({ maxClusters: 1 });
    const { requestId } = await pending(t, "taken-meanwhile");
    // An admin pre-creates a cluster of that name first.
    const pre = await server.api("POST", "/api/v1/clusters", { name: "taken-meanwhile", labels: { env: "prod", region: "eu" } });
    assert.equal(pre.status, 201, JSON.stringify(pre.body));
    const refused = await approve(requestId);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error, "cluster_conflict");
    assert.match(refused.body.message, /taken-meanwhile now belongs to another cluster/);
    assert.equal((await request(requestId)).state, "pending");
    assert.equal((await deny(requestId, "name taken")).status, 200, "the operator can deny it");
  });

  test("bulk decisions: each id on its own", async () => {
    const t = await mint({ maxClusters: 2 });
    const one = await pending(t, "bulk-one");
    const two = await pending(t, "bulk-two");
    const res = await server.api("POST", "/api/v1/registration-requests/decisions", {
      decision: "deny",
      ids: [one.requestId, "rr_missing", two.requestId],
      reason: "cleanup",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byId = new Map(res.body.results.map((r: { id: string }) => [r.id, r]));
    assert.equal((byId.get(one.requestId) as { ok: boolean }).ok, true);
    assert.equal((byId.get(two.requestId) as { ok: boolean }).ok, true);
    assert.deepEqual((byId.get("rr_missing") as { error: { code: string } }).error.code, "not_found");
    assert.equal(await usedClusters(t.id), 0);
  });

  test("tokens: requireApproval is shown and audited; the fleet's requireApprovalByDefault decides when the mint does not say", async () => {
    const plain = await mintToken(server, {});
    assert.equal(plain.requireApproval, false, "off by default");
    const patched = await server.api("PATCH", "/api/v1/settings", { requireApprovalByDefault: true });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.requireApprovalByDefault, true);
    try {
      const defaulted = await mintToken(server, {});
      assert.equal(defaulted.requireApproval, true);
      const explicit = await mintToken(server, { requireApproval: false });
      assert.equal(explicit.requireApproval, false);
      const audit = await server.api("GET", `/api/v1/audit?action=token.mint&target=${defaulted.id}`);
      assert.equal(audit.body.items[0]?.details.requireApproval, true);
      const settingsAudit = await server.api("GET", "/api/v1/audit?action=settings.update");
      assert.ok(
        settingsAudit.body.items.some(
          (e: { details: { changes?: Record<string, unknown> } }) => e.details.changes?.requireApprovalByDefault,
        ),
      );
    } finally {
      await server.api("PATCH", "/api/v1/settings", { requireApprovalByDefault: false });
    }
  });

  test("fleetctl approve and deny find a pending request by name; several for one name are listed, and one is approved by id", async () => {
    const operatorKey = (await server.api("POST", "/api/v1/api-keys", { name: "ops", role: "operator" })).body.key as string;
    const fleetctl = (...args: string[]) =>
      run(process.execPath, ["--import", "tsx", "lib/cli/fleetctl.ts", ...args], {
        env: { ...process.env, FLEET_SERVER: server.consoleUrl, FLEET_API_KEY: operatorKey },
      });
    const t = await mint({ maxClusters: 2 });
    const a = await pending(t, "cli-approve");
    const d = await pending(t, "cli-deny");
    const approved = await fleetctl("approve", "cli-approve");
    assert.match(approved.stdout, /approved cli-approve/);
    assert.equal((await request(a.requestId)).state, "approved");
    const noReason = await fleetctl("deny", "cli-deny").catch((e: { code: number; stderr: string }) => e);
    assert.equal((noReason as { code: number }).code, 2);
    assert.match((noReason as { stderr: string }).stderr, /--reason/);
    const denied = await fleetctl("deny", d.requestId, "--reason", "wrong team");
    assert.match(denied.stdout, /denied cli-deny/);
    const view = await request(d.requestId);
    assert.equal(view.state, "denied");
    assert.equal(view.reason, "wrong team");
    assert.equal(view.decidedBy, "api-key:ops");

    const first = await pending(t, "cli-choose");
    const second = await pending(t, "cli-choose");
    const listed = await fleetctl("requests", "list", "--name", "cli-choose");
    assert.match(listed.stdout, /\(2 requests for this name\)/);
    for (const r of [first, second])
      assert.ok(listed.stdout.includes((await request(r.requestId)).keyFingerprint), listed.stdout);
    const ambiguous = await fleetctl("approve", "cli-choose").catch((e: { code: number; stderr: string }) => e);
    assert.equal((ambiguous as { code: number }).code, 2);
    const listing = (ambiguous as { stderr: string }).stderr;
    assert.match(listing, /409 ambiguous_request/);
    for (const r of [first, second]) {
      assert.ok(listing.includes(r.requestId), listing);
      assert.ok(listing.includes((await request(r.requestId)).keyFingerprint), listing);
    }
    const chosen = await fleetctl("approve", second.requestId);
    assert.match(chosen.stdout, /approved cli-choose/);
    const loser = await request(first.requestId);
    assert.equal(loser.state, "denied");
    assert.equal(loser.reason, `another request for this name was approved: ${second.requestId}`);
    const told = await register(t.token, "cli-choose", first.key);
    assert.equal(told.status, 403);
    assert.equal(told.body.error, "registration_denied");

    // Beyond the queue's first page (and the 500 the list once stopped at): found by the server.
    const deep = await pending(await mint({ maxClusters: 1 }), "cli-deep");
    await setTime("RegistrationRequest", "firstSeenAt", deep.requestId, new Date(Date.now() - 3_600_000));
    await seedPending(501);
    const page = await server.api("GET", "/api/v1/registration-requests?state=pending&limit=500");
    assert.ok(!page.body.items.some((r: { id: string }) => r.id === deep.requestId), "not on the first page");
    assert.ok(page.body.nextCursor);
    const found = await fleetctl("approve", "cli-deep");
    assert.match(found.stdout, /approved cli-deep/);
    assert.equal((await request(deep.requestId)).state, "approved");
  });
});
