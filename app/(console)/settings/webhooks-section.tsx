"use client";

import { useState } from "react";
import { useSettings, useUpdateSettings } from "@/lib/client/settings";
import { useWebhooks, type Webhook } from "@/lib/client/webhooks";
import { SETTING_LABELS } from "@/lib/domain/settings";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CheckboxField } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { CreateWebhookDialog } from "@/components/settings/create-webhook-dialog";
import { DeleteWebhookDialog } from "@/components/settings/delete-webhook-dialog";
import { WebhookDeliveriesDialog } from "@/components/settings/webhook-deliveries-dialog";
import { WebhooksTable } from "@/components/settings/webhooks-table";

/** The switch for private targets: off, a webhook may only reach public addresses (SSRF). */
function PrivateTargetsSwitch() {
  const settings = useSettings();
  const update = useUpdateSettings();
  if (!settings.data) return null;
  // While the change is saved the box shows what was asked for; a refusal puts it back.
  const checked = update.isPending
    ? (update.variables.webhookAllowPrivateTargets ?? settings.data.webhookAllowPrivateTargets)
    : settings.data.webhookAllowPrivateTargets;
  return (
    <div className="mb-4">
      <CheckboxField
        id="webhook-private"
        label={SETTING_LABELS.webhookAllowPrivateTargets}
        checked={checked}
        disabled={update.isPending}
        onCheckedChange={(on) => update.mutate({ webhookAllowPrivateTargets: on })}
        hint={
          <>
            Private (10/8, 172.16/12, 192.168/16, fc00::/7), loopback and link-local addresses are refused unless this is on. Turn
            it on only for receivers inside your network.
          </>
        }
      />
      {update.error && <InlineError className="mt-2" error={update.error} />}
    </div>
  );
}

/** Webhook subscriptions: fleet events POSTed to a URL, signed, retried for 24 h, with a delivery log each. */
export function WebhooksSection() {
  const webhooks = useWebhooks();
  const [creating, setCreating] = useState(false);
  const [logOf, setLogOf] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  return (
    <Card
      title={<span id="webhooks">Webhooks</span>}
      action={
        <Button className="h-8" onClick={() => setCreating(true)}>
          New webhook
        </Button>
      }
    >
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        Clusters going NotReady or Ready again, flapping, expiring certificates, removals, registration failures and paused or
        failed rollouts, POSTed with <code className="font-mono text-xs">X-Fleet-Signature: sha256=…</code> (HMAC of the body
        under the secret shown once).
      </p>
      <PrivateTargetsSwitch />
      {webhooks.isPending ? (
        <TableSkeleton rows={2} label="Loading webhooks" />
      ) : webhooks.isError ? (
        <ErrorState title="Could not load webhooks" message={webhooks.error.message} onRetry={() => void webhooks.refetch()} />
      ) : webhooks.data.length === 0 ? (
        <EmptyState title="No webhooks yet">
          Subscribe a chat channel or an incident tool to the events that need a person.
        </EmptyState>
      ) : (
        <WebhooksTable webhooks={webhooks.data} onLog={setLogOf} onDelete={setDeleting} />
      )}
      {creating && <CreateWebhookDialog onClose={() => setCreating(false)} />}
      {logOf && <WebhookDeliveriesDialog webhook={logOf} onClose={() => setLogOf(null)} />}
      {deleting && <DeleteWebhookDialog webhook={deleting} onClose={() => setDeleting(null)} />}
    </Card>
  );
}
