// TLS session resumption on the real agent port, on both engines: the ticket key is read from the
// database, so a session issued before a restart resumes after it, and the certificate it carries
// still authenticates heartbeats. (Across two instances: multi-instance.test.ts.) A certificate is
// judged per request, so one revoked while a kept-alive connection is open is refused on it at
// the next heartbeat. About 10-30 s: one start and one restart.
import assert from "node:assert/strict";
import https from "node:https";
import type { Socket } from "node:net";
import { after, before, test } from "node:test";
import { call, heartbeatBody, registerCluster } from "../helpers/agent-client";
import { makeCsr } from "../helpers/csr";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { heartbeatOnNewConnection } from "../helpers/tls-session";

let server: FleetServer;
before(async () => {
  server = await startFleetServer();
});
after(async () => {
  await server?.stop();
});

test("a session issued before a restart resumes after it, and its certificate still authenticates the heartbeat", async () => {
  const { client } = await registerCluster(server, "tls-restart");
  const first = await heartbeatOnNewConnection(server, client);
  assert.equal(first.status, 200);
  assert.equal(first.reused, false);
  assert.ok(first.session, "the agent port sent a session ticket");
  const resumed = await heartbeatOnNewConnection(server, client, first.session);
  assert.deepEqual([resumed.reused, resumed.status], [true, 200]);

  await server.restart();
  const afterRestart = await heartbeatOnNewConnection(server, client, first.session);
  assert.equal(afterRestart.reused, true, "the restarted process read the same ticket key from the database");
  assert.equal(afterRestart.status, 200);

  // A certificate revoked since (rotated, then the new one used) is refused on a resumed session
  // as on a fresh one: revocation is the app's check, after the TLS layer.
  const { csr, key } = makeCsr();
  const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  const fresh = { cert: rotated.body.certificate as string, key };
  assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: fresh })).status, 200);
  const refused = await heartbeatOnNewConnection(server, client, first.session);
  assert.equal(refused.reused, true);
  assert.equal(refused.status, 403, "certificate_revoked");
});

test("a certificate revoked through the admin API is refused at the next request on the same kept-alive connection", async () => {
  const { clusterId, client } = await registerCluster(server, "tls-keep-alive");
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem, ...client });
  const sockets = new Set<Socket>();
  agent.on("free", (socket: Socket) => sockets.add(socket));
  try {
    const heartbeat = () => call(`${server.agentUrl}/api/agent/v1/heartbeat`, "POST", { body: heartbeatBody(), agent });
    assert.equal((await heartbeat()).status, 200);
    assert.equal((await heartbeat()).status, 200);
    const revoked = await server.api("POST", `/api/v1/clusters/${clusterId}/certificate/revoke`, { reason: "key leaked" });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const refused = await heartbeat();
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error, "certificate_revoked");
    assert.equal(sockets.size, 1, "every heartbeat went over the one connection");
  } finally {
    agent.destroy();
  }
});
