import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { GroupsView } from "./groups-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Groups" };

export default async function GroupsPage() {
  const { principal, state, now } = await openPage("/groups");
  return (
    <>
      <PageHeader
        title="Cluster groups"
        description="Saved label selectors: name a slice of the fleet once, then target it in pipelines, gates and policies."
      />
      {/* Hiding the controls is a courtesy; the API refuses viewers' changes regardless. */}
      <PageHydration state={state} now={now}>
        <GroupsView canEdit={hasRole(principal.role, "operator")} />
      </PageHydration>
    </>
  );
}
