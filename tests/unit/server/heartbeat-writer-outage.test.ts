// The heartbeat writer and the status sweeper while the database cannot be reached, without a
// database: DATABASE_URL names a loopback port nothing listens on, so every query is refused at
// once (ECONNREFUSED, as when PostgreSQL is down). A failed flush must keep the facts (not drop
// them, as it once did), count the failure, and the sweeper must not judge clusters meanwhile.
import assert from "node:assert/strict";
import { test } from "node:test";

// Read once, at the first env() call: set before anything asks for the database.
process.env.DATABASE_URL = "postgresql://fleet@127.0.0.1:1/fleet";
process.env.LOG_LEVEL = "error";

const facts = (pods: number) => ({
  at: new Date(),
  agentVersion: "1.4.0",
  kubernetesVersion: "1.30.2",
  apiServerHealth: "ok",
  logsReporting: true,
  metricsReporting: true,
  podCount: pods,
  userPodCount: null,
  namespaceCount: 1,
  appliedPolicyRevision: undefined,
  nodePools: [],
});

test("a flush that cannot reach the database keeps the facts; the sweeper waits for them", { timeout: 30_000 }, async () => {
  const { enqueueHeartbeat, flushHeartbeats, heartbeatBuffer, heartbeatsCaughtUp } =
    await import("@/lib/server/heartbeats/heartbeat-writer");
  const { sweepStatuses } = await import("@/lib/server/heartbeats/status-sweeper");
  const { renderOwnMetrics } = await import("@/lib/server/metrics/registry");
  const originalError = console.error;
  const originalStderr = process.stderr.write.bind(process.stderr);
  process.stderr.write = () => true; // the writer logs the failure once; not this test's output
  try {
    enqueueHeartbeat("c1", facts(1));
    enqueueHeartbeat("c2", facts(1));
    await flushHeartbeats(true);
    assert.deepEqual(heartbeatBuffer(), { facts: 2, counts: 2, failing: true }, "nothing dropped");
    assert.ok((await renderOwnMetrics()).some((l) => /^fleet_heartbeat_flush_failures_total [1-9]/.test(l)));

    // Newer facts that arrive meanwhile replace the buffered ones; counts add up.
    enqueueHeartbeat("c1", facts(2));
    await flushHeartbeats(true);
    assert.deepEqual(heartbeatBuffer(), { facts: 2, counts: 2, failing: true });

    assert.equal(await heartbeatsCaughtUp(), false);
    // Judged by stale stored facts every cluster would turn NotReady: the sweep waits instead of
    // failing or deciding (it would throw here, the database being unreachable).
    assert.equal(await sweepStatuses(), 0);
  } finally {
    process.stderr.write = originalStderr;
    console.error = originalError;
  }
});
