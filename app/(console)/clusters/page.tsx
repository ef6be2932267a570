import type { Metadata } from "next";
import { mayOpen, pageOf } from "@/lib/domain/page-roles";
import { hasRole } from "@/lib/domain/roles";
import { accessOf } from "@/lib/server/auth/principal";
import { openPage, type PageProps } from "@/lib/server/console/open-page";
import { ClustersView } from "./clusters-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Clusters" };

export default async function ClustersPage(props: PageProps) {
  const { principal, state, now } = await openPage("/clusters", props);
  return (
    <PageHydration state={state} now={now}>
      <ClustersView
        canMint={hasRole(principal.role, "operator")}
        isAdmin={hasRole(principal.role, "admin")}
        fleetRole={principal.role !== null}
        operatingTeams={principal.teams.filter((g) => hasRole(g.role, "operator")).map((g) => g.team)}
        canRollout={mayOpen(pageOf("/rollouts/new"), accessOf(principal))}
      />
    </PageHydration>
  );
}
