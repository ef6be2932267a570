import type { Metadata } from "next";
import Link from "next/link";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { RolloutsView } from "./rollouts-view";
import { HydrationBoundary } from "@tanstack/react-query";
import { queryKeys } from "@/lib/client/query-keys";
import { pageData, pageQuery } from "@/lib/server/console/page-data";
import { groupRoutes } from "@/lib/contracts/groups";
import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { listGroups } from "@/lib/server/groups/groups";
import { listRollouts } from "@/lib/server/rollouts/list-rollouts";

export const metadata: Metadata = { title: "Rollouts" };

export default async function RolloutsPage() {
  const principal = await requirePage("/rollouts");
  const state = await pageData(principal, [
    pageQuery(rolloutRoutes.list, queryKeys.rollouts.list, async () => ({ items: await listRollouts() })),
    pageQuery(groupRoutes.list, queryKeys.groups.list, async () => ({ items: await listGroups() })),
  ]);
  const canCreate = hasRole(principal.role, "operator");
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
      <HydrationBoundary state={state}>
        <RolloutsView canCreate={canCreate} />
      </HydrationBoundary>
    </>
  );
}
