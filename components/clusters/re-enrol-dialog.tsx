"use client";

import { useState, type FormEvent } from "react";
import { TOKEN_TTL_MAX_SECONDS } from "@/lib/domain/tokens";
import { useMintToken, type MintedToken } from "@/lib/client/tokens";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { ttlSeconds, type MintDraft } from "@/components/tokens/mint-token-draft";
import { TtlPicker } from "@/components/tokens/ttl-picker";

type TtlDraft = Pick<MintDraft, "ttlPreset" | "customTtl" | "customUnit">;

/**
 * Mints a one-use registration token bound to this cluster: the way back for an agent that
 * cannot prove itself with its kept key, or the claim of a pre-created cluster. The token goes
 * to `onMinted` (the page shows it once) and nowhere else.
 */
export function ReEnrolDialog({
  cluster,
  onClose,
  onMinted,
}: {
  cluster: { id: string; name: string; phase: string };
  onClose: () => void;
  onMinted: (token: MintedToken) => void;
}) {
  const mint = useMintToken();
  const [ttl, setTtl] = useState<TtlDraft>({ ttlPreset: "24h", customTtl: "12", customUnit: "hours" });
  const [error, setError] = useState<unknown>(null);
  const seconds = ttlSeconds(ttl);
  const ttlError =
    Number.isFinite(seconds) && seconds >= 60 && seconds <= TOKEN_TTL_MAX_SECONDS ? undefined : "Between a minute and 30 days.";
  const claiming = cluster.phase === "Provisioning";

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (ttlError) return;
    setError(null);
    try {
      const minted = await mint.mutateAsync({
        name: `${claiming ? "claim" : "re-enrol"} ${cluster.name}`,
        ttlSeconds: seconds,
        maxClusters: 1,
        clusterId: cluster.id,
      });
      onMinted(minted);
    } catch (err) {
      setError(err);
    }
  }

  return (
    <Dialog
      title={`Re-enrol ${cluster.name}`}
      onClose={onClose}
      description="Mints a token bound to this cluster: it registers this cluster only, once, and keeps its id and labels."
    >
      <form onSubmit={submit} noValidate className="space-y-4" aria-label="Re-enrol this cluster">
        <div className="space-y-2 text-sm text-slate-700 dark:text-slate-300">
          {claiming ? (
            <p>
              This cluster was pre-created and waits for its agent. Only a token bound to it claims it; mint another here if the
              one shown when it was created is lost.
            </p>
          ) : (
            <>
              <p>Use it when the agent cannot come back by itself:</p>
              <ul className="list-disc space-y-1 pl-5">
                <li>it lost its key (its state was deleted, or it runs on a new volume);</li>
                <li>its certificate expired longer ago than the renewal grace, or an operator revoked it;</li>
                <li>the cluster was rebuilt and a new agent takes over its entry.</li>
              </ul>
              <p className="text-slate-600 dark:text-slate-400">
                An agent that still has its key needs none of this: it registers again with any valid token. When the new agent
                registers, the old certificate stops working.
              </p>
            </>
          )}
        </div>
        <TtlPicker value={ttl} onChange={(patch) => setTtl((t) => ({ ...t, ...patch }))} error={ttlError} />
        <FormActions
          error={error}
          onCancel={onClose}
          pending={mint.isPending}
          label="Mint re-enrolment token"
          pendingLabel="Minting…"
        />
      </form>
    </Dialog>
  );
}
