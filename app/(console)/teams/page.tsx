import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { PageHydration } from "@/components/shell/page-hydration";
import { TeamsView } from "./teams-view";

export const metadata: Metadata = { title: "Teams" };

export default async function TeamsPage() {
  const { principal, state, now } = await openPage("/teams");
  return (
    <PageHydration state={state} now={now}>
      <PageHeader
        title="Teams"
        description="Each team sees and acts on the clusters its label selector matches, and only those. New clusters join a team by their labels."
      />
      <TeamsView
        fleetAdmin={hasRole(principal.role, "admin")}
        adminOf={principal.teams.filter((g) => g.role === "admin").map((g) => g.teamId)}
      />
    </PageHydration>
  );
}
