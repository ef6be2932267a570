"use client";

import { useState } from "react";
import { useWebhooks, type Webhook } from "@/lib/client/webhooks";
import { Button } from "@/components/ui/button";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { CreateWebhookDialog, type WebhookOwners } from "@/components/webhooks/create-webhook-dialog";
import { DeleteWebhookDialog } from "@/components/webhooks/delete-webhook-dialog";
import { PrivateTargetsSwitch } from "@/components/settings/private-targets-switch";
import { WebhookDeliveriesDialog } from "@/components/webhooks/webhook-deliveries-dialog";
import { WebhooksTable } from "@/components/webhooks/webhooks-table";

/**
 * Webhook subscriptions: fleet events POSTed to a URL, signed, retried for 24 h, with a delivery
 * log each. `owners`: whom the caller makes subscriptions for: "fleet" for a fleet admin (the
 * fleet's, or any team's), else the teams they administer (the list then holds only theirs).
 */
export function WebhooksSection({ owners }: { owners: WebhookOwners }) {
  const webhooks = useWebhooks();
  const [creating, setCreating] = useState(false);
  const [logOf, setLogOf] = useState<Webhook | null>(null);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">
          {owners === "fleet"
            ? "Clusters going NotReady or Ready again, flapping, expiring certificates, removals, registration failures and paused or failed rollouts"
            : "Your teams' clusters going NotReady or Ready again, flapping, expiring certificates, removals, failed upgrades and registrations waiting for approval"}
          , POSTed with <code className="font-mono text-xs">X-Fleet-Signature-V2: sha256=…</code> (HMAC of the timestamp and the
          body under the secret shown once; refuse one more than 5 minutes old).
        </p>
        <Button onClick={() => setCreating(true)}>New webhook</Button>
      </div>
      {owners === "fleet" && (
        <PrivateTargetsSwitch setting="webhookAllowPrivateTargets" hint="Turn it on only for receivers inside your network." />
      )}
      {webhooks.isPending ? (
        <TableSkeleton rows={2} label="Loading webhooks" />
      ) : webhooks.isError ? (
        <ErrorState title="Could not load webhooks" message={webhooks.error.message} onRetry={() => void webhooks.refetch()} />
      ) : webhooks.data.length === 0 ? (
        <EmptyState title="No webhooks yet">
          Subscribe a chat channel or an incident tool to the events that need a person.
        </EmptyState>
      ) : (
        <WebhooksTable webhooks={webhooks.data} onLog={setLogOf} onEdit={setEditing} onDelete={setDeleting} />
      )}
      {creating && <CreateWebhookDialog owners={owners} onClose={() => setCreating(false)} />}
      {editing && <CreateWebhookDialog key={editing.id} owners={owners} webhook={editing} onClose={() => setEditing(null)} />}
      {logOf && <WebhookDeliveriesDialog webhook={logOf} onClose={() => setLogOf(null)} />}
      {deleting && <DeleteWebhookDialog webhook={deleting} onClose={() => setDeleting(null)} />}
    </div>
  );
}
