// The agent's probe endpoint answers on both address families: the kubelet probes the pod's IP,
// which is IPv6 on a single-stack IPv6 cluster.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { startHealthServer } from "../../../lib/agent/health";

test("the health server answers /healthz and /readyz on IPv4 and IPv6 loopback", async () => {
  const subject: { ready: boolean; reason?: string } = { ready: false };
  const server = await startHealthServer(0, subject);
  const { port } = server.address() as AddressInfo;
  try {
    for (const host of ["127.0.0.1", "[::1]"]) {
      assert.equal((await fetch(`http://${host}:${port}/healthz`)).status, 200, host);
      assert.equal((await fetch(`http://${host}:${port}/readyz`)).status, 503, host);
    }
    subject.reason = "no identity in Secret fleet-system/fleet-agent-state and no registration token";
    const idle = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(idle.status, 503);
    assert.equal(await idle.text(), `not ready: ${subject.reason}\n`, "an idle agent says why it is not Ready");
    subject.ready = true;
    assert.equal((await fetch(`http://[::1]:${port}/readyz`)).status, 200);
  } finally {
    server.close();
  }
});
