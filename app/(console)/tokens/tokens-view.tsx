"use client";

import { useState } from "react";
import { useFleetFacts, useTokens, type MintedToken, type RegistrationToken } from "@/lib/client/tokens";
import { Button } from "@/components/ui/button";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { AgentImageWarning } from "@/components/tokens/agent-image-warning";
import { MintTokenForm, type MintTeam } from "@/components/tokens/mint-token-form";
import { MintedTokenPanel } from "@/components/tokens/minted-token-panel";
import { RegistrationAttemptsLog } from "@/components/tokens/registration-attempts-log";
import { RevokeTokenDialog } from "@/components/tokens/revoke-token-dialog";
import { TokensTable } from "@/components/tokens/tokens-table";

type Panel = { kind: "closed" } | { kind: "form" } | { kind: "minted"; token: MintedToken };

/**
 * `fleetMint`: the viewer may mint and revoke any token (a fleet operator); `mintTeams`: the teams
 * whose tokens they manage as a team admin.
 */
export function TokensView({ fleetMint, mintTeams }: { fleetMint: boolean; mintTeams: readonly MintTeam[] }) {
  const canManage = fleetMint || mintTeams.length > 0;
  const mayRevoke = (t: RegistrationToken) => fleetMint || (!!t.team && mintTeams.some((m) => m.name === t.team));
  const tokens = useTokens();
  // Loaded with the page so the agent command is ready the moment a token is minted.
  useFleetFacts();
  // The minted token lives here, in component state, only until the panel is closed.
  const [panel, setPanel] = useState<Panel>({ kind: "closed" });
  const [revoking, setRevoking] = useState<RegistrationToken | null>(null);

  const closePanel = () => {
    setPanel({ kind: "closed" });
    // Back to where the keyboard was (the Mint button reappears with the panel closed).
    requestAnimationFrame(() => document.getElementById("mint-token-button")?.focus());
  };

  return (
    <div className="space-y-10">
      <AgentImageWarning />
      <section aria-labelledby="tokens-heading" className="space-y-4">
        <div className="flex min-h-9 items-center justify-between gap-4">
          <h2 id="tokens-heading" className="text-base font-semibold">
            Tokens
          </h2>
          {canManage ? (
            panel.kind === "closed" && (
              <Button id="mint-token-button" onClick={() => setPanel({ kind: "form" })}>
                Mint token
              </Button>
            )
          ) : (
            <p className="text-sm text-slate-500 dark:text-slate-400">
              You can see tokens; minting and revoking them needs the operator role.
            </p>
          )}
        </div>

        {panel.kind === "form" && (
          <MintTokenForm
            teams={mintTeams}
            fleetMint={fleetMint}
            onCancel={closePanel}
            onMinted={(token) => setPanel({ kind: "minted", token })}
          />
        )}
        {panel.kind === "minted" && <MintedTokenPanel minted={panel.token} onClose={closePanel} />}

        {tokens.isPending ? (
          <TableSkeleton rows={4} label="Loading registration tokens" />
        ) : tokens.isError ? (
          <ErrorState
            title="Could not load registration tokens"
            message={tokens.error.message}
            onRetry={() => void tokens.refetch()}
          />
        ) : tokens.data.length === 0 ? (
          <EmptyState title="No registration tokens yet — mint one to bring a cluster in">
            {canManage
              ? "A token lets an agent register its cluster. Choose how long it lives, how many clusters it may bring in and which labels they may carry."
              : "A token lets an agent register its cluster; an operator or admin can mint one."}
          </EmptyState>
        ) : (
          <TokensTable tokens={tokens.data} mayRevoke={mayRevoke} onRevoke={setRevoking} />
        )}
      </section>

      <section aria-labelledby="attempts-heading" className="space-y-4">
        <div>
          <h2 id="attempts-heading" className="text-base font-semibold">
            Registration attempts
          </h2>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            Every time an agent presents a token, accepted or refused, with what a refusal means and what to do about it.
          </p>
        </div>
        <RegistrationAttemptsLog tokens={tokens.data} />
      </section>

      {revoking && <RevokeTokenDialog token={revoking} onClose={() => setRevoking(null)} />}
    </div>
  );
}
