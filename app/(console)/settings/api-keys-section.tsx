"use client";

import { useState } from "react";
import { useApiKeys, type ApiKey } from "@/lib/client/settings";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { ApiKeysTable } from "@/components/settings/api-keys-table";
import { CreateApiKeyDialog } from "@/components/settings/create-api-key-dialog";
import { RevokeApiKeyDialog } from "@/components/settings/revoke-api-key-dialog";

/** API keys for pipelines and the CLI: minted with a role, shown once, revocable. */
export function ApiKeysSection() {
  const keys = useApiKeys();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  return (
    <Card
      title={<span id="api-keys">API keys</span>}
      action={
        <Button className="h-8" onClick={() => setCreating(true)}>
          New API key
        </Button>
      }
    >
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        Pipelines, monitoring and <code className="font-mono text-xs">fleetctl</code> send a key as{" "}
        <code className="font-mono text-xs">Authorization: Bearer frk_…</code>. Keys are stored hashed and shown only when
        created.
      </p>
      {keys.isPending ? (
        <TableSkeleton rows={3} label="Loading API keys" />
      ) : keys.isError ? (
        <ErrorState title="Could not load API keys" message={keys.error.message} onRetry={() => void keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <EmptyState title="No API keys yet">A viewer key is enough for the pipeline gate; mint one per pipeline.</EmptyState>
      ) : (
        <ApiKeysTable keys={keys.data} onRevoke={setRevoking} />
      )}
      {creating && <CreateApiKeyDialog onClose={() => setCreating(false)} />}
      {revoking && <RevokeApiKeyDialog apiKey={revoking} onClose={() => setRevoking(null)} />}
    </Card>
  );
}
