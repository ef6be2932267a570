import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { GroupsView } from "./groups-view";

export const metadata: Metadata = { title: "Groups" };

export default async function GroupsPage() {
  const principal = await requirePage("viewer");
  return (
    <>
      <PageHeader
        title="Cluster groups"
        description="Saved label selectors: name a slice of the fleet once, then target it in pipelines, gates and policies."
      />
      {/* Hiding the controls is a courtesy; the API refuses viewers' changes regardless. */}
      <GroupsView canEdit={hasRole(principal.role, "operator")} />
    </>
  );
}
