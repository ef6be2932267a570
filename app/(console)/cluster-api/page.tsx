import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { PageHydration } from "@/components/shell/page-hydration";
import { ClusterApiSection } from "@/components/cluster-api/cluster-api-section";

export const metadata: Metadata = { title: "Cluster API" };

export default async function ClusterApiPage() {
  const { principal, state, now } = await openPage("/cluster-api");
  // Courtesy only: the API refuses each action below its role regardless.
  const permissions = { canEditSources: hasRole(principal.role, "admin"), canRetry: hasRole(principal.role, "operator") };
  return (
    <>
      <PageHeader
        title="Cluster API"
        description="Management clusters the fleet watches: the clusters Cluster API creates there join the fleet by themselves, and leave when it deletes them."
      />
      <PageHydration state={state} now={now}>
        <ClusterApiSection permissions={permissions} />
      </PageHydration>
    </>
  );
}
