import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { TokensView } from "./tokens-view";
import { HydrationBoundary } from "@tanstack/react-query";
import { queryKeys } from "@/lib/client/query-keys";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { tokenRoutes } from "@/lib/contracts/tokens";
import { listTokens } from "@/lib/server/tokens/list-tokens";

export const metadata: Metadata = { title: "Tokens" };

export default async function TokensPage() {
  const principal = await requirePage("/tokens");
  const state = await pageData(principal, [
    pageQuery(tokenRoutes.list, queryKeys.tokens.list, async () => ({ items: await listTokens() })),
  ]);
  return (
    <>
      <PageHeader
        title="Registration tokens"
        description="Clusters join the fleet by presenting a token. Each is shown once, limited in time, uses and labels, and can be revoked."
      />
      {/* Hiding the controls is a courtesy; the API refuses viewers' mints and revocations regardless. */}
      <HydrationBoundary state={state}>
        <TokensView canManage={hasRole(principal.role, "operator")} />
      </HydrationBoundary>
    </>
  );
}
