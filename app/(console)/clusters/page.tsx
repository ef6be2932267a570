import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage, type PageProps } from "@/lib/server/console/open-page";
import { ClustersView } from "./clusters-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Clusters" };

export default async function ClustersPage(props: PageProps) {
  const { principal, state, now } = await openPage("/clusters", props);
  return (
    <PageHydration state={state} now={now}>
      <ClustersView canMint={hasRole(principal.role, "operator")} isAdmin={hasRole(principal.role, "admin")} />
    </PageHydration>
  );
}
