import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { hasRole } from "@/lib/domain/roles";
import { openPage, type PageProps } from "@/lib/server/console/open-page";
import { ClustersView } from "./clusters-view";

export const metadata: Metadata = { title: "Clusters" };

export default async function ClustersPage(props: PageProps) {
  const { principal, state } = await openPage("/clusters", props);
  return (
    <HydrationBoundary state={state}>
      <ClustersView canMint={hasRole(principal.role, "operator")} />
    </HydrationBoundary>
  );
}
