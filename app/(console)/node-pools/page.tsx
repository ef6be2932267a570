import type { Metadata } from "next";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { NodePoolsView } from "./node-pools-view";

export const metadata: Metadata = { title: "Node pools" };

export default async function NodePoolsPage() {
  await requirePage("viewer");
  return (
    <>
      <PageHeader
        title="Node pools"
        description="Fleet capacity as the agents report it: nodes, CPU and memory by region, environment or any label, kubelet versions and instance types. Pools are retired from each cluster's page."
      />
      <NodePoolsView />
    </>
  );
}
