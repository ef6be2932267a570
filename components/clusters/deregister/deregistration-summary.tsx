"use client";

import type { Deregistration } from "@/lib/client/clusters";
import type { DeregistrationStep } from "@/lib/domain/deregistration";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { RelativeTime, useNow } from "@/components/ui/relative-time";
import { AfterHydration, useHydrated } from "@/components/ui/local-time";
import { formatDuration } from "@/components/ui/format";

const STEP_BADGE: Record<DeregistrationStep | "none", { tone: Tone; label: string }> = {
  none: { tone: "neutral", label: "Not started" },
  draining: { tone: "amber", label: "Draining" },
  "workloads-moved": { tone: "amber", label: "Workloads moved" },
  disconnecting: { tone: "violet", label: "Disconnecting" },
  removed: { tone: "green", label: "Removed" },
  cancelled: { tone: "neutral", label: "Cancelled" },
};

function Item({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex items-baseline justify-between gap-3 py-2 first:pt-0 last:pb-0">
      <dt className="shrink-0 text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="min-w-0 truncate text-right tabular-nums">{children}</dd>
    </div>
  );
}

/** Where the deregistration stands: step, who started it, how long the current step has taken. */
export function DeregistrationSummary({ d, canAct, onCancel }: { d: Deregistration; canAct: boolean; onCancel?: () => void }) {
  const now = useNow();
  const hydrated = useHydrated();
  const badge = STEP_BADGE[d.step ?? "none"];
  const running = d.step !== null && d.step !== "removed" && d.step !== "cancelled";
  return (
    <Card title="Deregistration" action={<Badge tone={badge.tone}>{badge.label}</Badge>}>
      <dl className="divide-y divide-slate-100 text-sm dark:divide-slate-800">
        <Item label="Cluster">
          <span title={d.clusterId} className="font-medium">
            {d.clusterName ?? "—"}
          </span>
        </Item>
        <Item label="Cluster id">
          <code className="font-mono text-xs">{d.clusterId}</code>
        </Item>
        <Item label="Started">
          {d.startedAt ? (
            <AfterHydration>
              <RelativeTime iso={d.startedAt} />
            </AfterHydration>
          ) : (
            <span className="text-slate-500 dark:text-slate-400">not yet</span>
          )}
        </Item>
        {d.startedBy && <Item label="Started by">{d.startedBy}</Item>}
        {running && d.stepStartedAt && (
          <Item label="In this step">{hydrated ? formatDuration(now - Date.parse(d.stepStartedAt)) : " "}</Item>
        )}
        {d.finishedAt && (
          <Item label={d.step === "cancelled" ? "Cancelled" : "Finished"}>
            <AfterHydration>
              <RelativeTime iso={d.finishedAt} />
            </AfterHydration>
          </Item>
        )}
        {d.startedAt && d.finishedAt && d.step === "removed" && (
          <Item label="Took">{formatDuration(Date.parse(d.finishedAt) - Date.parse(d.startedAt))}</Item>
        )}
      </dl>
      {onCancel && (
        <div className="mt-4 border-t border-slate-100 pt-4 dark:border-slate-800">
          <Button variant="secondary" className="w-full" onClick={onCancel}>
            Cancel deregistration…
          </Button>
          <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
            Returns the cluster to Active. Possible until it is removed.
          </p>
        </div>
      )}
      {!canAct && d.step !== "removed" && (
        <p className="mt-4 border-t border-slate-100 pt-4 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
          You can follow this deregistration; acting on it needs the operator role.
        </p>
      )}
    </Card>
  );
}
