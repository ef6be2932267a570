import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { VersionsView } from "./versions-view";
import { HydrationBoundary } from "@tanstack/react-query";
import { queryKeys } from "@/lib/client/query-keys";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { settingsRoutes } from "@/lib/contracts/settings";
import { versionsOverview } from "@/lib/server/versions/compatibility";

export const metadata: Metadata = { title: "Versions" };

export default async function VersionsPage() {
  const principal = await requirePage("/versions");
  const state = await pageData(principal, [pageQuery(settingsRoutes.versions, queryKeys.versions, () => versionsOverview())]);
  return (
    <HydrationBoundary state={state}>
      <VersionsView canEdit={hasRole(principal.role, "admin")} canRollout={hasRole(principal.role, "operator")} />
    </HydrationBoundary>
  );
}
