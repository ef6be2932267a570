import "server-only";
import { db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { processSingleton } from "@/lib/server/process-singletons";

// What each agent says it can carry out (its heartbeat's `capabilities`), kept where every
// instance can read it: a ClusterEvent of this kind whenever the set changes. The cluster page
// offers node-pool actions only to agents that advertise them.
export const CAPABILITIES_EVENT = "capabilities";

// Heartbeats repeat the same set: the last one seen per cluster is remembered, and the stored
// record is looked at again only this often (status-event retention may prune an old one).
const RECHECK_MS = 24 * 60 * 60_000;

type Seen = { key: string; checkedAt: number };
const seen = () => processSingleton("agent-capabilities", () => new Map<string, Seen>());

/** The set as stored: sorted, each once, comma-separated. */
export function capabilitiesKey(capabilities: readonly string[]): string {
  return [...new Set(capabilities)].sort().join(",");
}

/**
 * Notes the capabilities a heartbeat reported (none: an older agent, nothing to note). Off the
 * heartbeat's path: a write happens only when the set differs from the stored one.
 */
export function noteCapabilities(clusterId: string, capabilities: readonly string[] | undefined, now = new Date()): void {
  if (!capabilities) return;
  const key = capabilitiesKey(capabilities);
  const map = seen();
  const last = map.get(clusterId);
  if (last && last.key === key && now.getTime() - last.checkedAt < RECHECK_MS) return;
  map.set(clusterId, { key, checkedAt: now.getTime() });
  void store(clusterId, key, now).catch((err: unknown) => {
    map.delete(clusterId);
    log.warn("could not record an agent's capabilities", { clusterId, error: String(err) });
  });
}

async function store(clusterId: string, key: string, now: Date) {
  const stored = await latestCapabilities(clusterId);
  if (stored !== null && capabilitiesKey(stored) === key) return;
  const cluster = await db().cluster.findUnique({ where: { id: clusterId }, select: { name: true } });
  if (!cluster) return;
  await db().clusterEvent.create({
    data: {
      clusterId,
      clusterName: cluster.name,
      kind: CAPABILITIES_EVENT,
      fromValue: stored === null ? null : stored.join(","),
      toValue: key,
      reason: "The agent reports the directives it can carry out.",
      at: now,
    },
  });
}

/** The capabilities the cluster's agent last reported; null when it never has (or an older agent). */
export async function latestCapabilities(clusterId: string): Promise<string[] | null> {
  const e = await db().clusterEvent.findFirst({
    where: { clusterId, kind: CAPABILITIES_EVENT },
    orderBy: { at: "desc" },
    select: { toValue: true },
  });
  return e ? e.toValue.split(",").filter(Boolean) : null;
}
