import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { OverviewDashboard } from "./overview-dashboard";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const { principal, state } = await openPage("/");
  return (
    <HydrationBoundary state={state}>
      <OverviewDashboard canMint={hasRole(principal.role, "operator")} />
    </HydrationBoundary>
  );
}
