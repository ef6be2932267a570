import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { groupRoutes } from "@/lib/contracts/groups";
import { filtersFromSearchParams, listQueryParams } from "@/lib/client/cluster-filters";
import { queryKeys } from "@/lib/client/query-keys";
import { hasRole } from "@/lib/domain/roles";
import { parseWith } from "@/lib/server/api/read-body";
import { requirePage } from "@/lib/server/auth/page-auth";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { listGroups } from "@/lib/server/groups/groups";
import { ClustersView } from "./clusters-view";

export const metadata: Metadata = { title: "Clusters" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ClustersPage({ searchParams }: Props) {
  const principal = await requirePage("/clusters");
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) if (typeof v === "string") search.set(k, v);
  // The view the URL names, read and asked for exactly as the list's own query does.
  const filters = filtersFromSearchParams(search);
  const query = () => parseWith(clusterRoutes.list.query, Object.fromEntries(listQueryParams(filters)), "query");
  const state = await pageData(principal, [
    pageQuery(clusterRoutes.list, queryKeys.clusters.list(filters), () => listClusters(query())),
    pageQuery(groupRoutes.list, queryKeys.groups.list, async () => ({ items: await listGroups() })),
  ]);
  return (
    <HydrationBoundary state={state}>
      <ClustersView canMint={hasRole(principal.role, "operator")} />
    </HydrationBoundary>
  );
}
