import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { VersionsView } from "./versions-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Versions" };

export default async function VersionsPage() {
  const { principal, state, now } = await openPage("/versions");
  return (
    <PageHydration state={state} now={now}>
      <VersionsView canEdit={hasRole(principal.role, "admin")} canRollout={hasRole(principal.role, "operator")} />
    </PageHydration>
  );
}
