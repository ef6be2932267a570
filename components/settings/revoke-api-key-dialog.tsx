"use client";

import { useRevokeApiKey, type ApiKey } from "@/lib/client/settings";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms revoking an API key: whatever uses it gets 401 from the next request on. */
export function RevokeApiKeyDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const revoke = useRevokeApiKey();
  return (
    <ConfirmDialog
      title={`Revoke “${apiKey.name}”?`}
      description="Pipelines and tools using this key get 401 unauthenticated from their next request. This cannot be undone; mint a new key to replace it."
      confirmLabel="Revoke key"
      pendingLabel="Revoking…"
      pending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutate(apiKey.id, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
