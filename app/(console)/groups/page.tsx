import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { GroupsView } from "./groups-view";
import { HydrationBoundary } from "@tanstack/react-query";
import { queryKeys } from "@/lib/client/query-keys";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { groupRoutes } from "@/lib/contracts/groups";
import { listGroups } from "@/lib/server/groups/groups";

export const metadata: Metadata = { title: "Groups" };

export default async function GroupsPage() {
  const principal = await requirePage("/groups");
  const state = await pageData(principal, [
    pageQuery(groupRoutes.list, queryKeys.groups.list, async () => ({ items: await listGroups() })),
  ]);
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
