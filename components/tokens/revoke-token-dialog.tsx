"use client";

import { useRevokeToken, type RegistrationToken } from "@/lib/client/tokens";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms a revocation; the dialog stays open with the server's message if it fails. */
export function RevokeTokenDialog({ token, onClose }: { token: RegistrationToken; onClose: () => void }) {
  const revoke = useRevokeToken();
  const left = token.maxClusters - token.usedClusters;
  return (
    <ConfirmDialog
      title={`Revoke “${token.name}”?`}
      description={
        <>
          Agents still holding this token will be refused from now on
          {left > 0 ? ` (it has ${left.toLocaleString("en-US")} use${left === 1 ? "" : "s"} left)` : ""}. Clusters it already
          registered keep running — their certificates are not affected. This cannot be undone.
        </>
      }
      confirmLabel="Revoke token"
      pendingLabel="Revoking…"
      pending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutate(token.id, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
