import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { VersionsView } from "./versions-view";

export const metadata: Metadata = { title: "Versions" };

export default async function VersionsPage() {
  const principal = await requirePage("viewer");
  return <VersionsView canEdit={hasRole(principal.role, "admin")} canRollout={hasRole(principal.role, "operator")} />;
}
