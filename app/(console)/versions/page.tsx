import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { VersionsView } from "./versions-view";
import { HydrationBoundary } from "@tanstack/react-query";

export const metadata: Metadata = { title: "Versions" };

export default async function VersionsPage() {
  const { principal, state } = await openPage("/versions");
  return (
    <HydrationBoundary state={state}>
      <VersionsView canEdit={hasRole(principal.role, "admin")} canRollout={hasRole(principal.role, "operator")} />
    </HydrationBoundary>
  );
}
