import type { Metadata } from "next";
import { requirePage } from "@/lib/server/auth/page-auth";
import { hasRole } from "@/lib/domain/roles";
import { ClustersView } from "./clusters-view";

export const metadata: Metadata = { title: "Clusters" };

export default async function ClustersPage() {
  const principal = await requirePage("viewer");
  return <ClustersView canMint={hasRole(principal.role, "operator")} />;
}
