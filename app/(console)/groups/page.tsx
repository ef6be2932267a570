import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { GroupsView } from "./groups-view";
import { HydrationBoundary } from "@tanstack/react-query";

export const metadata: Metadata = { title: "Groups" };

export default async function GroupsPage() {
  const { principal, state } = await openPage("/groups");
  return (
    <>
      <PageHeader
        title="Cluster groups"
        description="Saved label selectors: name a slice of the fleet once, then target it in pipelines, gates and policies."
      />
      {/* Hiding the controls is a courtesy; the API refuses viewers' changes regardless. */}
      <HydrationBoundary state={state}>
        <GroupsView canEdit={hasRole(principal.role, "operator")} />
      </HydrationBoundary>
    </>
  );
}
