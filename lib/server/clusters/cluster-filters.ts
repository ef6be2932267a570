import "server-only";
import type { Selector } from "@/lib/domain/selector";

// A label selector as a Prisma filter, for the change gate and rollouts, which read every match.
// (The cluster list, groups and counts use the SQL in cluster-sql.ts.) Typed loosely on purpose:
// the same object works for both generated clients.
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
