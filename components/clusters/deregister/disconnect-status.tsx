"use client";

import { AGENT_REMOVE_COMMAND } from "@/lib/domain/agent-kube-calls";
import type { Deregistration } from "@/lib/client/clusters";
import { useNow } from "@/components/ui/relative-time";
import { formatAgo, formatDuration } from "@/lib/domain/time-format";
import { LocalTime, useHydrated } from "@/components/ui/local-time";
import { formatCountdown } from "@/components/ui/format";
import { secondsUntilForceAllowed } from "./wizard-steps";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_1fr] gap-3 py-2 first:pt-0 last:pb-0">
      <dt className="text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="tabular-nums">{children}</dd>
    </div>
  );
}

/** The disconnect directive: when it was sent, whether the agent acknowledged, and the timeout. */
export function DisconnectStatus({ disconnect }: { disconnect: NonNullable<Deregistration["disconnect"]> }) {
  const hydrated = useHydrated();
  const clockNow = useNow();
  // Until hydrated the clock reads as "just sent": the server's instant is not the browser's.
  const now = hydrated ? clockNow : Date.parse(disconnect.sentAt);
  const left = secondsUntilForceAllowed({ disconnect }, now);
  const sent = Date.parse(disconnect.sentAt);
  const elapsed = Math.min(1, (now - sent) / (disconnect.timeoutSeconds * 1000));
  return (
    <dl className="divide-y divide-slate-100 rounded-md border border-slate-200 px-4 py-3 text-sm dark:divide-slate-800 dark:border-slate-800">
      <Row label="Directive sent">
        <LocalTime iso={disconnect.sentAt} />
        {hydrated && <span className="text-slate-500 dark:text-slate-400"> · {formatAgo(now - sent)}</span>}
      </Row>
      <Row label="Acknowledged">
        {disconnect.acknowledged && disconnect.acknowledgedAt ? (
          <span data-testid="disconnect-acknowledged" className="text-emerald-700 dark:text-emerald-400">
            <span aria-hidden>✓ </span>
            <LocalTime iso={disconnect.acknowledgedAt} />
            <span className="text-slate-500 dark:text-slate-400">
              {" "}
              · {formatDuration(Date.parse(disconnect.acknowledgedAt) - sent)} after it was sent
            </span>
          </span>
        ) : (
          <span className="text-amber-700 dark:text-amber-400">Not yet — waiting for the agent&apos;s next heartbeat</span>
        )}
      </Row>
      {disconnect.failedReason && (
        <Row label="Agent reported">
          <span data-testid="disconnect-failed" className="text-rose-700 dark:text-rose-400">
            {disconnect.failedReason}
          </span>
        </Row>
      )}
      {disconnect.acknowledged && (
        <Row label="Left in the cluster">
          <div className="space-y-1">
            <p className="text-slate-500 dark:text-slate-400">
              An in-cluster agent replaces its credentials with a tombstone, scales itself to 0 and deletes its role bindings;
              this removes the rest:
            </p>
            <code data-testid="agent-remove-command" className="block break-all font-mono text-xs">
              {AGENT_REMOVE_COMMAND}
            </code>
          </div>
        </Row>
      )}
      {!disconnect.acknowledged && left !== null && (
        <Row label="Timeout">
          <div className="space-y-1.5">
            <p>
              {left > 0 ? (
                <>
                  Removal may be forced in <span className="font-medium">{formatCountdown(left)}</span>
                  <span className="text-slate-500 dark:text-slate-400"> (after {disconnect.timeoutSeconds} s)</span>
                </>
              ) : (
                <span className="text-rose-700 dark:text-rose-400">
                  Timed out after {disconnect.timeoutSeconds} s: removal may be forced with a reason.
                </span>
              )}
            </p>
            <div
              role="progressbar"
              aria-label="Time waited for the acknowledgement"
              aria-valuemin={0}
              aria-valuemax={disconnect.timeoutSeconds}
              aria-valuenow={Math.round(elapsed * disconnect.timeoutSeconds)}
              className="h-1.5 w-full overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800"
            >
              <div
                className={`h-full rounded-full ${left > 0 ? "bg-sky-500" : "bg-rose-500"}`}
                style={{ width: `${Math.round(elapsed * 100)}%` }}
              />
            </div>
          </div>
        </Row>
      )}
    </dl>
  );
}
