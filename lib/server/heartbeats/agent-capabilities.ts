import "server-only";
import { db } from "@/lib/server/db/client";
import { columns, sql, writeOnDriver } from "@/lib/server/db/sql";
import { log } from "@/lib/server/log";
import { processSingleton } from "@/lib/server/process-singletons";
import { onPrimary } from "@/lib/server/agent-port/workers/primary-calls";

// What each agent says it can carry out (its heartbeat's `capabilities`), kept on the cluster's
// row (Cluster.capabilities) where every instance can read it. The cluster page offers node-pool
// actions only to agents that advertise them.

// Heartbeats repeat the same set: the last one seen per cluster is remembered, and the stored
// set is looked at again only this often (the agent may have told another instance a different
// set meanwhile, and this one would otherwise keep trusting what it saw last).
const RECHECK_MS = 24 * 60 * 60_000;

type Seen = { stored: string; checkedAt: number };
const seen = () => processSingleton("agent-capabilities", () => new Map<string, Seen>());

/** The set as stored: sorted, each once, a JSON array. */
export function storedCapabilitiesText(capabilities: readonly string[]): string {
  return JSON.stringify([...new Set(capabilities)].sort());
}

/** The stored text as a set; null when never reported (or unreadable: then the next heartbeat's set replaces it). */
export function parseStoredCapabilities(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.every((c) => typeof c === "string") ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Notes the capabilities a heartbeat reported (none: an older agent, nothing to note). Off the
 * heartbeat's path: a write happens only when the set differs from the stored one.
 */
export function noteCapabilities(clusterId: string, capabilities: readonly string[] | undefined, now = new Date()): void {
  if (!capabilities) return;
  const stored = storedCapabilitiesText(capabilities);
  const map = seen();
  const last = map.get(clusterId);
  if (last && last.stored === stored && now.getTime() - last.checkedAt < RECHECK_MS) return;
  map.set(clusterId, { stored, checkedAt: now.getTime() });
  void storeCapabilities(clusterId, stored).catch((err: unknown) => {
    map.delete(clusterId);
    log.warn("could not record an agent's capabilities", { clusterId, error: String(err) });
  });
}

const cluster = columns("Cluster");

/**
 * One conditional statement: it matches (and writes) only when the stored set differs. On the
 * driver: every new cluster's first heartbeat brings one, a registration wave thousands.
 */
const storeCapabilities = onPrimary("store-capabilities", async (clusterId: string, stored: string) => {
  await writeOnDriver(
    sql`UPDATE ${cluster.table} SET ${cluster("capabilities")} = ${stored}, ${cluster("updatedAt")} = ${new Date()}
        WHERE ${cluster("id")} = ${clusterId} AND (${cluster("capabilities")} IS NULL OR ${cluster("capabilities")} <> ${stored})`,
  );
});

/** The capabilities the cluster's agent last reported; null when it never has (or an older agent). */
export async function storedCapabilities(clusterId: string): Promise<string[] | null> {
  const c = await db().cluster.findUnique({ where: { id: clusterId }, select: { capabilities: true } });
  return parseStoredCapabilities(c?.capabilities ?? null);
}
