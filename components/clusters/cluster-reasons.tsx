"use client";

import type { ClusterReason } from "@/lib/domain/cluster-reason";
import { Badge, toneClass, type Tone } from "@/components/ui/badge";
import { formatDuration } from "@/components/ui/format";
import { useNow } from "@/components/ui/relative-time";
import { HoverTip } from "./hover-tip";

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
    case "provisioningOverdue":
      return `provisioning for ${formatDuration(now - Date.parse(r.since))}, over the ${formatDuration(r.thresholdMinutes * 60_000)} threshold`;
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
  provisioningOverdue: "amber",
};

/**
 * Why a cluster is not plainly healthy: the most serious reason, cut after four lines with an
 * ellipsis and whole in a tooltip on hover and focus, and how many more (listed in the same
 * tooltip); or every reason when `all`. Nothing for a healthy cluster.
 */
export function ClusterReasons({ reasons, all = false }: { reasons: readonly ClusterReason[]; all?: boolean }) {
  const now = useNow();
  if (!reasons.length) return null;
  const texts = reasons.map((r) => reasonText(r, now));
  if (all)
    return (
      <span className="flex min-w-0 flex-wrap gap-1" data-testid="cluster-reasons" title={texts.join("; ")}>
        {reasons.map((r, i) => (
          <span key={r.code} className="min-w-0 max-w-full" data-reason={r.code}>
            <Badge tone={TONE[r.code]}>
              <span className="[overflow-wrap:anywhere]">{texts[i]}</span>
            </Badge>
          </span>
        ))}
      </span>
    );
  const [first] = reasons;
  return (
    <span className="flex min-w-0 items-start gap-1" data-testid="cluster-reasons">
      <span
        className={`min-w-0 max-w-full rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${toneClass(TONE[first!.code])}`}
        data-reason={first!.code}
      >
        <HoverTip text={texts[0]!} tip={reasons.length > 1 ? `Also: ${texts.slice(1).join("; ")}` : undefined} lines={4}>
          {texts[0]}
        </HoverTip>
      </span>
      {reasons.length > 1 && (
        <span className="shrink-0 pt-0.5 text-xs text-slate-600 dark:text-slate-400">
          +{reasons.length - 1}
          <span className="sr-only"> more: {texts.slice(1).join("; ")}</span>
        </span>
      )}
    </span>
  );
}
