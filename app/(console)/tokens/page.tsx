import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { formatSelector } from "@/lib/domain/selector";
import { pinnedLabels } from "@/lib/domain/teams";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { TokensView } from "./tokens-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Tokens" };

export default async function TokensPage() {
  const { principal, state, now } = await openPage("/tokens");
  return (
    <>
      <PageHeader
        title="Registration tokens"
        description="Clusters join the fleet by presenting a token. Each is shown once, limited in time, uses and labels, and can be revoked."
      />
      {/* Hiding the controls is a courtesy; the API refuses viewers' mints and revocations regardless. */}
      <PageHydration state={state} now={now}>
        <TokensView
          fleetMint={hasRole(principal.role, "operator")}
          mintTeams={principal.teams
            .filter((g) => g.role === "admin")
            .map((g) => ({ name: g.team, scope: formatSelector(g.selector), pinned: pinnedLabels(g.selector) }))}
        />
      </PageHydration>
    </>
  );
}
