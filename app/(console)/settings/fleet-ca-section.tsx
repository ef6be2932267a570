"use client";

import { useState } from "react";
import type { CaSummary } from "@/lib/contracts/settings";
import { useFleetCa, useRetireOldCa, useStartCaRollover } from "@/lib/client/settings";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";
import { useNow } from "@/components/ui/relative-time";
import { LocalTime } from "@/components/ui/local-time";
import { daysUntil } from "@/lib/domain/time-format";

const STATE_TONE: Record<CaSummary["state"], Tone> = { active: "green", retiring: "amber", incoming: "blue" };

const CONFIRM = {
  start: {
    title: "Start a fleet CA rollover?",
    description:
      "A new CA signs every certificate from now on and agents are asked to rotate onto it. Both CAs stay trusted until you retire the old one.",
    confirmLabel: "Start rollover",
    pendingLabel: "Starting…",
  },
  retire: {
    title: "Retire the old CA?",
    description: "Certificates of the old CA stop working and the agent port presents a certificate from the new CA.",
    confirmLabel: "Retire old CA",
    pendingLabel: "Retiring…",
  },
} as const;

/** The fleet CA: fingerprint, expiry and state; a rollover's progress, start and retirement. */
export function FleetCaSection() {
  const ca = useFleetCa();
  const actions = { start: useStartCaRollover(), retire: useRetireOldCa() };
  const [confirming, setConfirming] = useState<"start" | "retire" | null>(null);
  const now = useNow();

  const rollover = ca.data?.rollover ?? null;
  const action = !ca.data ? null : rollover ? (
    <Button className="h-8" disabled={!rollover.canRetire} onClick={() => setConfirming("retire")}>
      Retire old CA
    </Button>
  ) : (
    <Button className="h-8" variant="secondary" onClick={() => setConfirming("start")}>
      Start CA rollover
    </Button>
  );

  return (
    <Card title={<span id="fleet-ca">Fleet CA</span>} action={action}>
      {ca.isPending ? (
        <Skeleton className="h-24" />
      ) : ca.isError ? (
        <ErrorState title="Could not load the fleet CA" message={ca.error.message} onRetry={() => void ca.refetch()} />
      ) : (
        <div className="space-y-4">
          <ul className="space-y-3" aria-label="Fleet CAs">
            {ca.data.cas.map((c) => (
              <li key={c.fingerprint} className="text-sm">
                <div className="flex items-center gap-2">
                  <Badge tone={STATE_TONE[c.state]}>{c.state}</Badge>
                  <span className="text-slate-600 dark:text-slate-400">
                    {c.key} · expires <LocalTime iso={c.notAfter} format="date" /> ({daysUntil(c.notAfter, now)} days)
                  </span>
                </div>
                <code className="mt-1 block font-mono text-xs break-all" aria-label={`Fingerprint of the ${c.state} CA`}>
                  {c.fingerprint}
                </code>
              </li>
            ))}
          </ul>
          {rollover ? (
            <div role="status" aria-label="Rollover progress" className="text-sm">
              <div className="mb-1 flex justify-between">
                <span>
                  {rollover.clusters - rollover.onOldCa} of {rollover.clusters} clusters on the new CA
                </span>
                <span className="font-medium">{rollover.percent}%</span>
              </div>
              <div className="h-2 rounded bg-slate-200 dark:bg-slate-800">
                <div className="h-2 rounded bg-sky-600" style={{ width: `${rollover.percent}%` }} />
              </div>
              <p className="mt-2 text-slate-600 dark:text-slate-400">
                Agents adopt the new CA from their heartbeat answers and rotate onto it. The old CA can be retired once no current
                certificate chains to it; the agent port then switches to a certificate from the new CA.
              </p>
            </div>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              Agents pin this fingerprint. Start a rollover well before the CA expires: every agent must rotate onto the new CA
              before the old one can be retired.
            </p>
          )}
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          {...CONFIRM[confirming]}
          pending={actions[confirming].isPending}
          error={actions[confirming].error}
          onConfirm={() => actions[confirming].mutate(undefined, { onSuccess: () => setConfirming(null) })}
          onClose={() => setConfirming(null)}
        />
      )}
    </Card>
  );
}
