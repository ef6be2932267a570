import "server-only";
import type { Selector } from "@/lib/domain/selector";
import type { ClusterStatus } from "@/lib/domain/status";

// Translations of the pure domain filters into database filters, shared by the cluster list,
// groups and the change gate. Typed loosely on purpose: the same object works for both
// generated clients.
export type ClusterWhere = Record<string, unknown>;

export function selectorWhere(selector: Selector): ClusterWhere[] {
  return selector.map((r) => {
    switch (r.op) {
      case "exists":
        return { labels: { some: { key: r.key } } };
      case "!exists":
        return { NOT: { labels: { some: { key: r.key } } } };
      case "in":
        return { labels: { some: { key: r.key, value: { in: r.values } } } };
      case "notin":
        // As in Kubernetes, != and notin also match clusters without the key.
        return { NOT: { labels: { some: { key: r.key, value: { in: r.values } } } } };
    }
  });
}

const LIFECYCLE_OVERRIDES = ["Draining", "Deregistration", "Provisioning"];

/** Clusters whose computed status (lib/domain/status.ts) is `status` at `now`. */
export function statusWhere(status: ClusterStatus, now: Date, thresholdSeconds: number): ClusterWhere {
  const cutoff = new Date(now.getTime() - thresholdSeconds * 1000);
  const healthPhase = { phase: { notIn: LIFECYCLE_OVERRIDES } };
  switch (status) {
    case "Draining":
      return { phase: "Draining" };
    case "Deregistering":
      return { phase: "Deregistration" };
    case "Provisioning":
      return { phase: "Provisioning" };
    case "Pending":
      return { ...healthPhase, lastHeartbeatAt: null };
    case "Ready":
      return {
        ...healthPhase,
        lastHeartbeatAt: { gte: cutoff },
        OR: [{ apiServerHealth: null }, { apiServerHealth: { not: "down" } }],
      };
    case "NotReady":
      return {
        ...healthPhase,
        lastHeartbeatAt: { not: null },
        OR: [{ lastHeartbeatAt: { lt: cutoff } }, { apiServerHealth: "down" }],
      };
  }
}
