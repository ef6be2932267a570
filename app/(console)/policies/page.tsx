import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { PoliciesView } from "./policies-view";
import { HydrationBoundary } from "@tanstack/react-query";
import { queryKeys } from "@/lib/client/query-keys";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { policyRoutes } from "@/lib/contracts/policies";
import { listPolicies } from "@/lib/server/policies/policies";

export const metadata: Metadata = { title: "Policies" };

export default async function PoliciesPage() {
  const principal = await requirePage("/policies");
  const state = await pageData(principal, [
    pageQuery(policyRoutes.list, queryKeys.policies.list, async () => ({ items: await listPolicies() })),
  ]);
  return (
    <>
      <PageHeader
        title="Policies"
        description="Baseline configuration with numbered revisions, targeted at cluster groups. A cluster is enrolled only once it has applied the revisions it should run."
      />
      <HydrationBoundary state={state}>
        <PoliciesView canEdit={hasRole(principal.role, "operator")} />
      </HydrationBoundary>
    </>
  );
}
