// TLS session resumption on the real agent port, on both engines: the ticket key is read from the
// database, so a session issued before a restart resumes after it, and the certificate it carries
// still authenticates heartbeats. (Across two instances: multi-instance.test.ts.) About 10-30 s:
// one start and one restart.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { heartbeatBody, registerCluster } from "../helpers/agent-client";
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
