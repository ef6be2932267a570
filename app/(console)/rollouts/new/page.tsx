import type { Metadata } from "next";
import Link from "next/link";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { VERSION_FLAGS } from "@/lib/contracts/settings";
import { flaggedClusterIds } from "@/lib/server/versions/compatibility";
import { clustersParam } from "@/components/rollouts/rollout-draft";
import { clusterFilterSchema } from "@/lib/contracts/clusters";
import { selectClusters } from "@/lib/server/clusters/select-clusters";
import { hasRole } from "@/lib/domain/roles";
import { scopeFor } from "@/lib/domain/teams";
import { accessOf } from "@/lib/server/auth/principal";
import { clusterIdsInScope } from "@/lib/server/clusters/cluster-list-sql";
import { NewRolloutView } from "./new-rollout-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "New rollout" };

type Search = { clusters?: string | string[]; flagged?: string | string[]; matching?: string | string[] };

/**
 * Explicit clusters to prefill: ?clusters=id1,id2 (picked in the cluster list), ?matching=<list
 * filter> ("all N matching" a filter, evaluated now), or ?flagged=<flag|all> (Versions' "upgrade these").
 */
async function prefilledClusters(search: Search): Promise<string[]> {
  if (typeof search.matching === "string") {
    const filter = clusterFilterSchema.strict().safeParse(Object.fromEntries(new URLSearchParams(search.matching)));
    // A filter that no longer parses, or matches too many, leaves the form to be filled by hand.
    return filter.success ? selectClusters({ filter: filter.data }).catch(() => []) : [];
  }
  const flagged = typeof search.flagged === "string" ? search.flagged : undefined;
  if (flagged === "all") return flaggedClusterIds(undefined);
  const flag = VERSION_FLAGS.find((f) => f === flagged);
  if (flag) return flaggedClusterIds(flag);
  return clustersParam(search.clusters);
}

export default async function NewRolloutPage(props: { searchParams: Promise<Search> }) {
  // The role first: the prefill reads clusters only for someone who may plan a rollout.
  const { principal, state, now } = await openPage("/rollouts/new", props);
  const prefilled = await prefilledClusters(await props.searchParams);
  // Planning through teams: only the clusters in their scopes are offered (the others do not exist for them).
  const scope = scopeFor(accessOf(principal), "operator");
  const inScope = scope && prefilled.length ? await clusterIdsInScope(scope) : null;
  const clusterIds = inScope ? prefilled.filter((id) => inScope.has(id)) : prefilled;
  const teams = hasRole(principal.role, "operator")
    ? []
    : principal.teams.filter((g) => hasRole(g.role, "operator")).map((g) => ({ id: g.teamId, name: g.team }));
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/rollouts" className="text-sky-700 hover:underline dark:text-sky-400">
          ← Rollouts
        </Link>
      </nav>
      <PageHeader
        title="New rollout"
        description="Pick a version and the clusters, split them into stages, and set how carefully to go. It starts at once."
      />
      <PageHydration state={state} now={now}>
        <NewRolloutView clusterIds={clusterIds} teams={teams} canListGroups={hasRole(principal.role, "viewer")} />
      </PageHydration>
    </>
  );
}
