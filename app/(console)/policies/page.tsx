import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { PoliciesView } from "./policies-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Policies" };

export default async function PoliciesPage() {
  const { principal, state, now } = await openPage("/policies");
  return (
    <>
      <PageHeader
        title="Policies"
        description="Baseline configuration with numbered revisions, targeted at cluster groups. A cluster is enrolled only once it has applied the revisions it should run."
      />
      <PageHydration state={state} now={now}>
        <PoliciesView canEdit={hasRole(principal.role, "operator")} />
      </PageHydration>
    </>
  );
}
