import type { Metadata } from "next";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { NodePoolsView } from "./node-pools-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Node pools" };

export default async function NodePoolsPage() {
  const { state, now } = await openPage("/node-pools");
  return (
    <>
      <PageHeader
        title="Node pools"
        description="Fleet capacity as the agents report it: nodes, CPU and memory by region, environment or any label, kubelet versions and instance types. Pools are retired from each cluster's page."
      />
      <PageHydration state={state} now={now}>
        <NodePoolsView />
      </PageHydration>
    </>
  );
}
