import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { OverviewDashboard } from "./overview-dashboard";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const { principal, state, now } = await openPage("/");
  return (
    <PageHydration state={state} now={now}>
      <OverviewDashboard canMint={hasRole(principal.role, "operator")} />
    </PageHydration>
  );
}
