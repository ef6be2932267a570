// Two instances of the app on one PostgreSQL, as in an HA deployment: one CA, events that
// cross instances (LISTEN/NOTIFY), status transitions recorded once.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { heartbeatBody, registerCluster } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { testEngine } from "../helpers/test-database";

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
}
