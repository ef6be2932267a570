"use client";

import { useRevokeApiKey, type ApiKey } from "@/lib/client/operations";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError } from "@/components/lifecycle/inline-error";

/** Confirms revoking an API key: whatever uses it gets 401 from the next request on. */
export function RevokeApiKeyDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const revoke = useRevokeApiKey();
  return (
    <Dialog
      title={`Revoke “${apiKey.name}”?`}
      description="Pipelines and tools using this key get 401 unauthenticated from their next request. This cannot be undone; mint a new key to replace it."
      onClose={onClose}
    >
      {revoke.error && <InlineError error={revoke.error} className="mb-4" />}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose} autoFocus>
          Cancel
        </Button>
        <Button variant="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(apiKey.id, { onSuccess: onClose })}>
          {revoke.isPending ? "Revoking…" : "Revoke key"}
        </Button>
      </div>
    </Dialog>
  );
}
