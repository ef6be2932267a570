import "server-only";
import { db } from "@/lib/server/db/client";
import { Snapshot } from "@/lib/server/agents/snapshot";

export type OpenDirective = { id: string; type: string; payload: string };
export type AgentContext = { phase: string | null; directives: OpenDirective[] };

// What a heartbeat answer depends on besides the heartbeat itself: the lifecycle phases that
// override status, and the directives not yet acknowledged. Both are rare, so the whole fleet's
// worth is loaded at most once a second and shared by every heartbeat, instead of a query per
// heartbeat. Changes made on this instance call invalidateAgentContext() and apply at once.
const MAX_AGE_MS = 1000;
const OVERRIDING_PHASES = ["Draining", "Deregistration", "Provisioning"];

type Loaded = { phases: Map<string, string>; directives: Map<string, OpenDirective[]> };

const g = globalThis as unknown as { __fleetAgentContext?: Snapshot<Loaded> };

function snapshot(): Snapshot<Loaded> {
  g.__fleetAgentContext ??= new Snapshot(async () => {
    const [clusters, open] = await Promise.all([
      db().cluster.findMany({ where: { phase: { in: OVERRIDING_PHASES } }, select: { id: true, phase: true } }),
      db().directive.findMany({
        where: { ackedAt: null },
        select: { id: true, clusterId: true, type: true, payload: true },
        orderBy: { createdAt: "asc" },
      }),
    ]);
    const directives = new Map<string, OpenDirective[]>();
    for (const d of open) {
      const list = directives.get(d.clusterId) ?? [];
      list.push({ id: d.id, type: d.type, payload: d.payload });
      directives.set(d.clusterId, list);
    }
    return { phases: new Map(clusters.map((c) => [c.id, c.phase])), directives };
  }, MAX_AGE_MS);
  return g.__fleetAgentContext;
}

export async function agentContext(clusterId: string): Promise<AgentContext> {
  const s = await snapshot().get();
  return { phase: s.phases.get(clusterId) ?? null, directives: s.directives.get(clusterId) ?? [] };
}

/** Call after changing a phase or a directive, so this instance's agents see it on their next heartbeat. */
export function invalidateAgentContext() {
  snapshot().invalidate();
}
