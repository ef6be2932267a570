"use client";

import { useTestWebhook, useUpdateWebhook, type Webhook } from "@/lib/client/webhooks";
import { WEBHOOK_EVENT_LABELS } from "@/lib/domain/webhooks";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { InlineError } from "@/components/ui/inline-error";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHead } from "@/components/ui/table-head";
import { DELIVERY_TONE } from "./webhook-deliveries-dialog";
import { ScrollRegion } from "@/components/ui/scroll-region";

function Row({ w, onLog, onEdit, onDelete }: { w: Webhook; onLog: () => void; onEdit: () => void; onDelete: () => void }) {
  const update = useUpdateWebhook();
  const test = useTestWebhook();
  const last = w.lastDelivery;
  return (
    <tr data-webhook={w.url}>
      <td className="max-w-72 px-4 py-2.5">
        <div className="font-medium break-all">{w.url}</div>
        <div className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">
          {w.format === "slack" ? "Slack" : "JSON"} · {w.events.map((e) => WEBHOOK_EVENT_LABELS[e]).join(", ")}
        </div>
        {w.legacySignature && (
          <div className="mt-1" data-testid="webhook-legacy-signature">
            <Badge
              tone="amber"
              title="Also sent X-Fleet-Signature, which signs the body alone: a captured delivery can be replayed. Edit to turn it off once the receiver checks X-Fleet-Signature-V2."
            >
              replayable: legacy signature header
            </Badge>
          </div>
        )}
        <div className="mt-0.5 text-xs text-slate-600 dark:text-slate-400" data-testid="webhook-scope">
          {w.team && <span data-testid="webhook-team">Team {w.team.name}: </span>}
          {w.selector ? (
            <>
              {w.team ? "its clusters matching" : "Clusters matching"}{" "}
              <code className="font-mono break-all text-slate-800 dark:text-slate-200">{w.selector}</code>
            </>
          ) : w.team ? (
            "every cluster of the team"
          ) : (
            "Every cluster"
          )}
        </div>
      </td>
      <td className="px-4 py-2.5">
        <Badge tone={w.enabled ? "green" : "neutral"}>{w.enabled ? "enabled" : "disabled"}</Badge>
      </td>
      <td className="px-4 py-2.5 text-xs text-slate-600 dark:text-slate-400" data-testid="webhook-last-delivery">
        {last ? (
          <>
            <Badge tone={DELIVERY_TONE[last.state]}>{last.state}</Badge>
            <div className="mt-1">
              {last.lastStatusCode !== null ? `HTTP ${last.lastStatusCode}` : "no answer"} ·{" "}
              <RelativeTime iso={last.lastAttemptAt} />
            </div>
          </>
        ) : (
          "nothing sent yet"
        )}
      </td>
      <td className="px-4 py-2 text-right">
        <div className="flex flex-wrap justify-end gap-1">
          <Button variant="ghost" className="h-8" disabled={test.isPending} onClick={() => test.mutate(w.id)}>
            {test.isPending ? "Sending…" : "Send test"}
            <span className="sr-only"> to {w.url}</span>
          </Button>
          <Button variant="ghost" className="h-8" onClick={onLog}>
            Log<span className="sr-only"> of {w.url}</span>
          </Button>
          <Button variant="ghost" className="h-8" onClick={onEdit}>
            Edit<span className="sr-only"> {w.url}</span>
          </Button>
          <Button
            variant="ghost"
            className="h-8"
            disabled={update.isPending}
            onClick={() => update.mutate({ id: w.id, patch: { enabled: !w.enabled } })}
          >
            {w.enabled ? "Disable" : "Enable"}
            <span className="sr-only"> {w.url}</span>
          </Button>
          <Button variant="ghost" className="h-8 text-rose-700 dark:text-rose-400" onClick={onDelete}>
            Delete<span className="sr-only"> {w.url}</span>
          </Button>
        </div>
        {(test.error ?? update.error) && <InlineError className="mt-1 text-left" error={test.error ?? update.error} />}
      </td>
    </tr>
  );
}

/** Subscriptions oldest first: URL, events, format, scope, whether enabled, and how the last delivery went. */
export function WebhooksTable({
  webhooks,
  onLog,
  onEdit,
  onDelete,
}: {
  webhooks: Webhook[];
  onLog: (w: Webhook) => void;
  onEdit: (w: Webhook) => void;
  onDelete: (w: Webhook) => void;
}) {
  return (
    <ScrollRegion label="Webhooks table" className="rounded-md border border-slate-200 dark:border-slate-800">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Webhook subscriptions</caption>
        <TableHead columns={["URL, events and scope", "Status", "Last delivery"]} actions />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {webhooks.map((w) => (
            <Row key={w.id} w={w} onLog={() => onLog(w)} onEdit={() => onEdit(w)} onDelete={() => onDelete(w)} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
