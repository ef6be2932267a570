// The agent's probe endpoint answers on both address families: the kubelet probes the pod's IP,
// which is IPv6 on a single-stack IPv6 cluster.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { startHealthServer } from "../../../lib/agent/health";

test("the health server answers /healthz and /readyz on IPv4 and IPv6 loopback", async () => {
  const subject = { ready: false };
  const server = await startHealthServer(0, subject);
  const { port } = server.address() as AddressInfo;
  try {
    for (const host of ["127.0.0.1", "[::1]"]) {
      assert.equal((await fetch(`http://${host}:${port}/healthz`)).status, 200, host);
      assert.equal((await fetch(`http://${host}:${port}/readyz`)).status, 503, host);
    }
    subject.ready = true;
    assert.equal((await fetch(`http://[::1]:${port}/readyz`)).status, 200);
  } finally {
    server.close();
  }
});
