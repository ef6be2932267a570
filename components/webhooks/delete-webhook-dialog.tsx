"use client";

import { useDeleteWebhook, type Webhook } from "@/lib/client/webhooks";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms deleting a subscription: its pending deliveries are not sent and its log goes with it. */
export function DeleteWebhookDialog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const remove = useDeleteWebhook();
  return (
    <ConfirmDialog
      title="Delete this webhook?"
      description={
        <>
          <span className="break-all">{webhook.url}</span> gets no more events, deliveries still waiting are dropped and its
          delivery log is deleted. Disable it instead to pause it.
        </>
      }
      confirmLabel="Delete webhook"
      pendingLabel="Deleting…"
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate(webhook.id, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
