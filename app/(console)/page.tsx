import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { OverviewDashboard } from "./overview-dashboard";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const principal = await requirePage("viewer");
  return <OverviewDashboard canMint={hasRole(principal.role, "operator")} />;
}
