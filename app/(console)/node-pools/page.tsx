import type { Metadata } from "next";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { NodePoolsView } from "./node-pools-view";
import { HydrationBoundary } from "@tanstack/react-query";
import { queryKeys } from "@/lib/client/query-keys";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { capacity } from "@/lib/server/node-pools/node-pools";

export const metadata: Metadata = { title: "Node pools" };

export default async function NodePoolsPage() {
  const principal = await requirePage("/node-pools");
  const state = await pageData(principal, [
    pageQuery(fleetRoutes.capacity, queryKeys.nodePools.capacity("region"), () => capacity("region")),
  ]);
  return (
    <>
      <PageHeader
        title="Node pools"
        description="Fleet capacity as the agents report it: nodes, CPU and memory by region, environment or any label, kubelet versions and instance types. Pools are retired from each cluster's page."
      />
      <HydrationBoundary state={state}>
        <NodePoolsView />
      </HydrationBoundary>
    </>
  );
}
