// Two instances of the app on one PostgreSQL, as in an HA deployment: one CA, events that
// cross instances (LISTEN/NOTIFY), status transitions recorded once, TLS sessions that resume on
// the other instance (shared ticket keys), sign-in throttles counted across instances.
// docs/operations/multiple-instances.md says what lives in one process and what is shared.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { heartbeatBody, registerCluster } from "../helpers/agent-client";
import { signIn } from "../helpers/console-session";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { testEngine } from "../helpers/test-database";
import { heartbeatOnNewConnection } from "../helpers/tls-session";

// SQLite is one process's embedded database; sharing one between instances is PostgreSQL's job.
if (testEngine() === "postgres") {
  let a: FleetServer;
  let b: FleetServer;
  before(async () => {
    a = await startFleetServer();
    b = await startFleetServer({}, { database: a.db });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  test("two instances share the fleet CA, see each other's events, and record a transition once", async () => {
    assert.equal(a.caPem, b.caPem, "one CA for the whole fleet");

    const cookie = await b.adminCookie();
    const controller = new AbortController();
    const stream = await fetch(`${b.consoleUrl}/api/v1/events`, { headers: { cookie }, signal: controller.signal });
    const reader = stream.body!.getReader();

    // Register and heartbeat on A; watch the stream served by B.
    const { clusterId, client } = await registerCluster(a, "ha-1", { body: { labels: { env: "prod", region: "eu" } } });
    // The certificate A issued is accepted by B.
    const hb = await b.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client });
    assert.equal(hb.status, 200);

    let text = "";
    const deadline = Date.now() + 15_000;
    while (
      Date.now() < deadline &&
      !(text.includes("cluster.registered") && /cluster\.status\ndata: .*"to":"Ready"/.test(text))
    ) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    assert.match(text, /event: cluster\.registered\ndata: .*ha-1/);
    assert.match(text, /event: cluster\.status\ndata: .*"to":"Ready"/);

    // Both sweepers ran; the transition is recorded exactly once.
    const detail = await b.api("GET", `/api/v1/clusters/${clusterId}`);
    assert.equal(
      detail.body.events.filter((e: { kind: string; to: string }) => e.kind === "status" && e.to === "Ready").length,
      1,
    );
  });

  test("a TLS session begun on one instance resumes on the other (one ticket key, sealed in the database), and the client certificate is still the identity", async () => {
    const { client } = await registerCluster(a, "ha-tls");
    const first = await heartbeatOnNewConnection(a, client);
    assert.equal(first.status, 200);
    assert.equal(first.reused, false);
    assert.ok(first.session, "instance A sent a session ticket");

    const onB = await heartbeatOnNewConnection(b, client, first.session);
    assert.equal(onB.reused, true, "instance B resumed A's session: no full handshake");
    assert.equal(onB.status, 200, "the resumed session's certificate authenticated the heartbeat");
    // A resumed connection brings no new ticket: the agent keeps using the one it has, anywhere.
    const backOnA = await heartbeatOnNewConnection(a, client, first.session);
    assert.deepEqual([backOnA.reused, backOnA.status], [true, 200], "the same ticket resumes on A again");

    const metrics = String((await b.api("GET", "/api/metrics", undefined, { cookie: null })).body);
    assert.match(metrics, /^fleet_agent_tls_handshakes_total\{resumed="true"\} [1-9]/m, "B counts its resumed handshakes");

    const rows = await a.db.query<{ value: string }>(`SELECT value FROM "Secret" WHERE name = 'agent-tls.ticket-keys'`);
    assert.equal(rows.length, 1, "one key set for the fleet");
    assert.match(rows[0]!.value, /"sealedKey"/, "sealed under the KEK, like the CA key");
    assert.doesNotMatch(rows[0]!.value, /"key":/);
  });

  test("sign-in throttles are shared: failures on both instances add up to one lock, seen by both", async () => {
    const account = { email: "ha-throttle@example.com", password: "the-right-password-1" };
    assert.equal((await a.api("POST", "/api/v1/users", { ...account, role: "viewer" })).status, 201);
    const wrong = { email: account.email, password: "wrong-password" };
    for (const [i, server] of [a, b, a, b, a].entries()) {
      assert.equal((await signIn(server.consoleUrl, wrong)).status, 401, `wrong password #${i + 1}`);
    }
    const onB = await signIn(b.consoleUrl, account);
    assert.equal(onB.status, 429, "five failures across two instances lock the account on B");
    assert.ok(Number(onB.headers["retry-after"]) >= 1);
    assert.equal((await signIn(a.consoleUrl, account)).status, 429, "and on A");
  });
}
