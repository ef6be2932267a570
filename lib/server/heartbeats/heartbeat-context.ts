import "server-only";
import { STATUS_OVERRIDE_PHASES } from "@/lib/domain/status";
import { db } from "@/lib/server/db/client";
import { Snapshot } from "@/lib/server/cache/snapshot";
import { processSingleton } from "@/lib/server/process-singletons";
import { everywhere } from "@/lib/server/agent-port/workers/primary-calls";

export type OpenDirective = { id: string; type: string; payload: string };
/** What a heartbeat's answer says besides the status: the phase that may override it, the open directives, the policy. */
export type HeartbeatContext = {
  phase: string | null;
  directives: OpenDirective[];
  /** Only for clusters whose desired policy revision differs from the applied one. */
  desiredPolicyRevision?: string | null;
};

// What a heartbeat answer depends on besides the heartbeat itself: the lifecycle phases that
// override status, and the directives not yet acknowledged. Both are rare, so the whole fleet's
// worth is loaded at most once a second and shared by every heartbeat, instead of a query per
// heartbeat. Changes made on this instance call invalidateHeartbeatContext() and apply at once.
const MAX_AGE_MS = 1000;

type Loaded = { phases: Map<string, string>; directives: Map<string, OpenDirective[]>; outOfSync: Map<string, string | null> };

function snapshot(): Snapshot<Loaded> {
  return processSingleton(
    "heartbeat-context",
    () =>
      new Snapshot<Loaded>(async () => {
        const applied = db().cluster.fields.appliedPolicyRevision;
        const [clusters, open, outOfSync] = await Promise.all([
          db().cluster.findMany({ where: { phase: { in: [...STATUS_OVERRIDE_PHASES] } }, select: { id: true, phase: true } }),
          db().directive.findMany({
            where: { ackedAt: null },
            select: { id: true, clusterId: true, type: true, payload: true },
            orderBy: { createdAt: "asc" },
          }),
          // Policies: only clusters that have not applied what they should run are loaded; every
          // other cluster's desired revision is the one it reports as applied.
          db().cluster.findMany({
            where: {
              OR: [
                { desiredPolicyRevision: null, appliedPolicyRevision: { not: null } },
                { desiredPolicyRevision: { not: null }, appliedPolicyRevision: null },
                {
                  desiredPolicyRevision: { not: null },
                  appliedPolicyRevision: { not: null },
                  NOT: { desiredPolicyRevision: { equals: applied } },
                },
              ],
            },
            select: { id: true, desiredPolicyRevision: true },
          }),
        ]);
        const directives = new Map<string, OpenDirective[]>();
        for (const d of open) {
          const list = directives.get(d.clusterId) ?? [];
          list.push({ id: d.id, type: d.type, payload: d.payload });
          directives.set(d.clusterId, list);
        }
        return {
          phases: new Map(clusters.map((c) => [c.id, c.phase])),
          directives,
          outOfSync: new Map(outOfSync.map((c) => [c.id, c.desiredPolicyRevision])),
        };
      }, MAX_AGE_MS),
  );
}

export async function heartbeatContext(clusterId: string): Promise<HeartbeatContext> {
  const s = await snapshot().get();
  return {
    phase: s.phases.get(clusterId) ?? null,
    directives: s.directives.get(clusterId) ?? [],
    ...(s.outOfSync.has(clusterId) ? { desiredPolicyRevision: s.outOfSync.get(clusterId) ?? null } : {}),
  };
}

/** Call after changing a phase or a directive, so this instance's agents see it on their next heartbeat (in every process). */
export const invalidateHeartbeatContext = everywhere("invalidate-heartbeat-context", () => snapshot().invalidate());
