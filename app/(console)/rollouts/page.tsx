import type { Metadata } from "next";
import Link from "next/link";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { RolloutsView } from "./rollouts-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Rollouts" };

export default async function RolloutsPage() {
  const { principal, state, now } = await openPage("/rollouts");
  // A team operator starts their team's rollouts; a team member sees their teams' only (the API bounds the list).
  const canCreate = hasRole(principal.role, "operator") || principal.teams.some((g) => hasRole(g.role, "operator"));
  return (
    <>
      <PageHeader
        title="Rollouts"
        description="Staged agent upgrades: a canary first, then batches, pausing by themselves when too many clusters fail."
        actions={
          canCreate ? (
            <Link
              href="/rollouts/new"
              className="inline-flex h-9 items-center rounded-md bg-sky-700 px-3.5 text-sm font-medium text-white hover:bg-sky-800"
            >
              New rollout
            </Link>
          ) : null
        }
      />
      <PageHydration state={state} now={now}>
        <RolloutsView canCreate={canCreate} canListGroups={hasRole(principal.role, "viewer")} />
      </PageHydration>
    </>
  );
}
