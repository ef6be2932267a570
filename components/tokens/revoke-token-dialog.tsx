"use client";

import { useRevokeToken, type RegistrationToken } from "@/lib/client/tokens";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** Confirms a revocation; the dialog stays open with the server's message if it fails. */
export function RevokeTokenDialog({ token, onClose }: { token: RegistrationToken; onClose: () => void }) {
  const revoke = useRevokeToken();
  const left = token.maxClusters - token.usedClusters;
  return (
    <Dialog
      title={`Revoke “${token.name}”?`}
      description={
        <>
          Agents still holding this token will be refused from now on
          {left > 0 ? ` (it has ${left.toLocaleString()} use${left === 1 ? "" : "s"} left)` : ""}. Clusters it already registered
          keep running — their certificates are not affected. This cannot be undone.
        </>
      }
      onClose={onClose}
    >
      {revoke.isError && (
        <p
          role="alert"
          className="mb-4 rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
        >
          {revoke.error.message}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose} autoFocus>
          Cancel
        </Button>
        <Button variant="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(token.id, { onSuccess: onClose })}>
          {revoke.isPending ? "Revoking…" : "Revoke token"}
        </Button>
      </div>
    </Dialog>
  );
}
