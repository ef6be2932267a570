"use client";

import type { ClusterReason } from "@/lib/domain/cluster-reason";
import { Badge, type Tone } from "@/components/ui/badge";
import { formatDuration } from "@/components/ui/format";
import { useNow } from "@/components/ui/relative-time";

/** A reason in words; `now` for "no heartbeat for 3 min". */
export function reasonText(r: ClusterReason, now: number): string {
  switch (r.code) {
    case "pending":
      return "pending (never heartbeated)";
    case "noHeartbeat":
      return `no heartbeat for ${formatDuration(now - Date.parse(r.since))}`;
    case "apiServerDown":
      return "API server down";
    case "degraded":
      return "API server degraded";
    case "sameCluster":
      return `Same cluster as ${r.clusters.map((c) => c.name).join(", ")}`;
    case "flapping":
      return `flapping — ${r.changes} changes in the last hour`;
    case "missingLabels":
      return `missing labels: ${r.keys.join(", ")}`;
  }
}

const TONE: Record<ClusterReason["code"], Tone> = {
  pending: "neutral",
  noHeartbeat: "red",
  apiServerDown: "red",
  degraded: "amber",
  sameCluster: "amber",
  flapping: "amber",
  missingLabels: "amber",
};

/**
 * Why a cluster is not plainly healthy: the most serious reason as a badge, and how many more
 * (all of them in the title), or every reason when `all`. Nothing for a healthy cluster.
 */
export function ClusterReasons({ reasons, all = false }: { reasons: readonly ClusterReason[]; all?: boolean }) {
  const now = useNow();
  if (!reasons.length) return null;
  const texts = reasons.map((r) => reasonText(r, now));
  const shown = all ? reasons : reasons.slice(0, 1);
  return (
    <span
      className={`flex min-w-0 gap-1 ${all ? "flex-wrap" : "items-center"}`}
      data-testid="cluster-reasons"
      title={texts.join("; ")}
    >
      {shown.map((r, i) => (
        <span key={r.code} className="min-w-0 max-w-full truncate" data-reason={r.code}>
          <Badge tone={TONE[r.code]}>
            <span className="truncate" suppressHydrationWarning>
              {texts[i]}
            </span>
          </Badge>
        </span>
      ))}
      {!all && reasons.length > 1 && (
        <span className="shrink-0 text-xs text-slate-600 dark:text-slate-400">
          +{reasons.length - 1}
          <span className="sr-only"> more: {texts.slice(1).join("; ")}</span>
        </span>
      )}
    </span>
  );
}
