import "server-only";
import { Gauge, Registry } from "prom-client";
import { databasePool, db } from "@/lib/server/db/client";
import { statusCounts } from "@/lib/server/events/fleet-summary";
import { caState } from "@/lib/server/pki/current-ca";
import { summarize } from "@/lib/server/pki/ca-rollover";
import { classifyDatabaseError } from "@/lib/server/db/database-errors";
import { heartbeatBuffer } from "@/lib/server/heartbeats/heartbeat-writer";
import { metricsRegistry } from "./registry";
import { aggregateMetrics, workersMetrics } from "@/lib/server/agent-port/workers/worker-stats";

export const HEARTBEAT_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

type Rows = [Record<string, string>, number][];

/** A gauge of this scrape's registry, set from `rows` (label names from the first row, or `labelNames`). */
function gauge(registry: Registry, name: string, help: string, rows: Rows, labelNames: string[] = []) {
  const g = new Gauge({ name, help, labelNames: rows[0] ? Object.keys(rows[0][0]) : labelNames, registers: [registry] });
  for (const [labels, value] of rows) g.set(labels, value);
}

/**
 * GET /api/metrics: fleet state from the database, plus this instance's own metrics. The fleet
 * part is read fresh for each scrape into a registry of its own (no series lingers for a token
 * or certificate gone since), then merged with the process's registry. While the database is
 * away the fleet part is left out (fleet_database_reachable 0) and the rest, the heartbeat
 * buffer among it, is still answered: that is when it matters.
 */
export async function renderMetrics(): Promise<string> {
  const fleet = new Registry();
  let reachable = 1;
  try {
    await readFleet(fleet);
  } catch (err) {
    if (!classifyDatabaseError(err)) throw err;
    reachable = 0;
  }
  gauge(fleet, "fleet_database_reachable", "1 when this scrape could read the fleet from the database, else 0.", [
    [{}, reachable],
  ]);
  const buffer = heartbeatBuffer();
  gauge(
    fleet,
    "fleet_heartbeat_buffered",
    "Heartbeat facts (newest per cluster) and per-minute counts waiting in memory to be written.",
    [
      [{ kind: "facts" }, buffer.facts],
      [{ kind: "counts" }, buffer.counts],
    ],
  );
  readPool(fleet);
  // With agent-port workers, their metrics join this process's (counters summed: one instance).
  const workers = await workersMetrics();
  const own = workers.length ? aggregateMetrics([await metricsRegistry().getMetricsAsJSON(), ...workers]) : metricsRegistry();
  return Registry.merge([fleet, own]).metrics();
}

// PostgreSQL only: SQLite is one connection inside the process (better-sqlite3, synchronous), so
// there is no pool to be in use or waited for, and the families are left out.
function readPool(fleet: Registry) {
  const pool = databasePool();
  if (!pool) return;
  gauge(
    fleet,
    "fleet_database_pool_connections",
    "PostgreSQL connections of this instance's pool: in use (checked out by a query or transaction) and idle.",
    [
      [{ state: "in_use" }, pool.totalCount - pool.idleCount],
      [{ state: "idle" }, pool.idleCount],
    ],
  );
  gauge(
    fleet,
    "fleet_database_pool_waiting",
    "Queries and transactions of this instance waiting for a PostgreSQL connection (the pool is full).",
    [[{}, pool.waitingCount]],
  );
}

async function readFleet(fleet: Registry) {
  const now = Date.now();
  const [status, phases, tokens, certs, cas] = await Promise.all([
    statusCounts(),
    db().cluster.groupBy({ by: ["phase"], _count: { _all: true } }),
    db().registrationToken.findMany({
      where: { revokedAt: null, expiresAt: { gt: new Date(now) } },
      select: { id: true, name: true, expiresAt: true, usedClusters: true, maxClusters: true },
      take: 1000,
    }),
    // Bounded: only certificates expiring within 30 days get a series of their own.
    db().certificate.findMany({
      where: { revokedAt: null, notAfter: { lte: new Date(now + 30 * 86_400_000) } },
      select: { notAfter: true, cluster: { select: { id: true, name: true } } },
      orderBy: { notAfter: "asc" },
      take: 1000,
    }),
    caState(),
  ]);
  gauge(
    fleet,
    "fleet_clusters",
    "Clusters by computed status.",
    Object.entries(status).map(([s, n]) => [{ status: s }, n]),
    ["status"],
  );
  gauge(
    fleet,
    "fleet_clusters_by_phase",
    "Clusters by lifecycle phase.",
    phases.map((p) => [{ phase: p.phase }, p._count._all]),
    ["phase"],
  );
  gauge(
    fleet,
    "fleet_registration_token_expiry_seconds",
    "Seconds until each usable registration token expires.",
    tokens
      .filter((t) => t.usedClusters < t.maxClusters)
      .map((t) => [{ token_id: t.id, name: t.name }, Math.round((t.expiresAt.getTime() - now) / 1000)]),
    ["token_id", "name"],
  );
  gauge(
    fleet,
    "fleet_certificate_expiry_seconds",
    "Seconds until a cluster's client certificate expires (certificates expiring within 30 days).",
    certs.map((c) => [{ cluster_id: c.cluster.id, cluster: c.cluster.name }, Math.round((c.notAfter.getTime() - now) / 1000)]),
    ["cluster_id", "cluster"],
  );
  gauge(
    fleet,
    "fleet_ca_not_after_timestamp_seconds",
    "When each fleet CA expires (Unix time); state is active, retiring (rollover in progress) or incoming. Alert well ahead: a rollover needs every agent to rotate.",
    summarize(cas).map((c) => [
      { fingerprint: c.fingerprint, state: c.state },
      Math.floor(new Date(c.notAfter).getTime() / 1000),
    ]),
    ["fingerprint", "state"],
  );
}
