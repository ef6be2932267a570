import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { queryKeys } from "@/lib/client/query-keys";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { overview } from "@/lib/server/fleet/overview";
import { OverviewDashboard } from "./overview-dashboard";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const principal = await requirePage("/");
  const state = await pageData(principal, [pageQuery(fleetRoutes.overview, queryKeys.overview, () => overview())]);
  return (
    <HydrationBoundary state={state}>
      <OverviewDashboard canMint={hasRole(principal.role, "operator")} />
    </HydrationBoundary>
  );
}
