import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { PoliciesView } from "./policies-view";

export const metadata: Metadata = { title: "Policies" };

export default async function PoliciesPage() {
  const principal = await requirePage("viewer");
  return (
    <>
      <PageHeader
        title="Policies"
        description="Baseline configuration with numbered revisions, targeted at cluster groups. A cluster is enrolled only once it has applied the revisions it should run."
      />
      <PoliciesView canEdit={hasRole(principal.role, "operator")} />
    </>
  );
}
