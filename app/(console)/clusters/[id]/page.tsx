import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { HydrationBoundary } from "@tanstack/react-query";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { queryKeys } from "@/lib/client/query-keys";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { db } from "@/lib/server/db/client";
import { ClusterView } from "./cluster-view";

type Props = { params: Promise<{ id: string }> };

// One indexed lookup (shared by the metadata and the page), so a wrong link gets a real 404 and
// the tab shows the cluster's name. The detail comes with the page; the island keeps it live.
const clusterName = cache(async (id: string): Promise<string | null> => {
  const c = await db().cluster.findUnique({ where: { id }, select: { name: true } });
  return c?.name ?? null;
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: (await clusterName(id)) ?? "Cluster not found" };
}

export default async function ClusterPage({ params }: Props) {
  const principal = await requirePage("/clusters/[id]");
  const { id } = await params;
  const [name, state] = await Promise.all([
    clusterName(id),
    pageData(principal, [pageQuery(clusterRoutes.get, queryKeys.clusters.detail(id), () => getCluster(id))]),
  ]);
  if (!name) notFound();
  return (
    <HydrationBoundary state={state}>
      <ClusterView id={id} canEdit={hasRole(principal.role, "operator")} />
    </HydrationBoundary>
  );
}
