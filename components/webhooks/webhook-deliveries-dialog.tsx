"use client";

import Link from "next/link";
import { useState } from "react";
import { DELIVERY_STATES } from "@/lib/contracts/webhooks";
import { useWebhookDeliveries, type Webhook, type WebhookDelivery } from "@/lib/client/webhooks";
import { NOT_READY_HOLD_MS, WEBHOOK_EVENT_LABELS } from "@/lib/domain/webhooks";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { inputClass } from "@/components/ui/field";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { TableHead } from "@/components/ui/table-head";

export const DELIVERY_TONE: Record<WebhookDelivery["state"], Tone> = {
  pending: "amber",
  delivered: "green",
  failed: "red",
  suppressed: "neutral",
};

/** Why a suppressed delivery was never sent, in the words the log shows. */
export const SUPPRESSED_NOTE = `a NotReady that recovered within the debounce window (${NOT_READY_HOLD_MS / 1000} s); not sent`;

/** The cluster a delivery is about, linked to its page while it is registered; "fleet" for fleet-wide events. */
function DeliveryCluster({ cluster }: { cluster: WebhookDelivery["cluster"] }) {
  if (!cluster) return <span className="text-slate-600 dark:text-slate-400">fleet</span>;
  if (cluster.removed)
    return (
      <span className="[overflow-wrap:anywhere]" title={cluster.id}>
        {cluster.name} <span className="text-xs text-slate-600 dark:text-slate-400">(removed)</span>
      </span>
    );
  return (
    <Link
      href={`/clusters/${encodeURIComponent(cluster.id)}`}
      className="[overflow-wrap:anywhere] text-sky-700 hover:underline dark:text-sky-400"
    >
      {cluster.name}
    </Link>
  );
}

/** A subscription's delivery log, newest first: state, attempts, the receiver's answer and latency. */
export function WebhookDeliveriesDialog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const [state, setState] = useState<WebhookDelivery["state"] | "">("");
  const log = useWebhookDeliveries(webhook.id, state || undefined);
  return (
    <Dialog title="Delivery log" description={<span className="break-all">{webhook.url}</span>} onClose={onClose}>
      <label className="mb-3 flex items-center gap-2 text-sm">
        <span className="text-slate-700 dark:text-slate-300">State</span>
        <select
          value={state}
          onChange={(e) => setState(e.target.value as WebhookDelivery["state"] | "")}
          className={`${inputClass} w-auto`}
          data-testid="delivery-state-filter"
        >
          <option value="">All</option>
          {DELIVERY_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      {log.isPending ? (
        <TableSkeleton rows={3} label="Loading deliveries" />
      ) : log.isError ? (
        <ErrorState title="Could not load the deliveries" message={log.error.message} onRetry={() => void log.refetch()} />
      ) : log.data.length === 0 && state ? (
        <EmptyState title={`No ${state} deliveries`}>No delivery in the log is {state}; “All” shows every one.</EmptyState>
      ) : log.data.length === 0 ? (
        <EmptyState title="Nothing sent yet">Events appear here as they happen; “Send test” sends one now.</EmptyState>
      ) : (
        // Focusable: a keyboard user scrolls the log (and a phone's wide table) too.
        <div
          tabIndex={0}
          role="region"
          aria-label="Deliveries"
          className="max-h-96 overflow-auto rounded-md border border-slate-200 dark:border-slate-800"
        >
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Deliveries, newest first</caption>
            <TableHead columns={["Event and cluster", "State", "Answer"]} />
            <tbody className="divide-y divide-slate-100 tabular-nums dark:divide-slate-800">
              {log.data.map((d) => (
                <tr key={d.id} data-delivery={d.id}>
                  <td className="px-4 py-2">
                    <div className="font-medium">{WEBHOOK_EVENT_LABELS[d.eventType]}</div>
                    <div className="text-xs" data-testid="delivery-cluster">
                      <DeliveryCluster cluster={d.cluster} />
                    </div>
                    <div className="text-xs text-slate-600 dark:text-slate-400">
                      <RelativeTime iso={d.createdAt} />
                    </div>
                  </td>
                  <td className="px-4 py-2">
                    <Badge tone={DELIVERY_TONE[d.state]} title={d.state === "suppressed" ? SUPPRESSED_NOTE : undefined}>
                      {d.state}
                    </Badge>
                    {d.state === "suppressed" && (
                      <div data-testid="suppressed-note" className="mt-1 max-w-48 text-xs text-slate-600 dark:text-slate-400">
                        {SUPPRESSED_NOTE}
                      </div>
                    )}
                    <div className="mt-1 text-xs text-slate-600 dark:text-slate-400">
                      {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
                      {d.nextAttemptAt && d.attempts > 0 && (
                        <>
                          , next <RelativeTime iso={d.nextAttemptAt} />
                        </>
                      )}
                    </div>
                  </td>
                  <td className="px-4 py-2 text-xs text-slate-600 dark:text-slate-400">
                    {d.state === "suppressed" ? (
                      "not sent"
                    ) : d.lastAttemptAt ? (
                      <>
                        <div className="font-medium text-slate-800 dark:text-slate-200">
                          {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : "no answer"}
                          {d.lastLatencyMs !== null && ` · ${d.lastLatencyMs} ms`}
                        </div>
                        {d.lastError && <div className="max-w-56 break-words">{d.lastError}</div>}
                      </>
                    ) : (
                      (d.lastError ?? "not attempted yet")
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="mt-4 flex justify-end">
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
    </Dialog>
  );
}
