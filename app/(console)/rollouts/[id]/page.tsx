import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { hasRole } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import { currentPrincipal, ownedAccess } from "@/lib/server/auth/page-auth";
import { openPage } from "@/lib/server/console/open-page";
import { rolloutOnce } from "@/lib/server/console/page-queries";
import { RolloutView } from "./rollout-view";
import { PageHydration } from "@/components/shell/page-hydration";

type Props = { params: Promise<{ id: string }> };

/**
 * The rollout and the caller's role on it, or null when there is none or it is not theirs to see
 * (another team's, or the fleet's for someone with team roles only): read before the title names it.
 */
const visibleRollout = cache(async (id: string) => {
  const [principal, rollout] = await Promise.all([
    currentPrincipal(),
    rolloutOnce(id).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === "not_found") return null;
      throw err;
    }),
  ]);
  const role = principal && rollout ? ownedAccess(principal, rollout.team?.id ?? null) : null;
  return rollout && role ? { rollout, role } : null;
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const visible = await visibleRollout((await params).id);
  return { title: visible ? `Rollout ${visible.rollout.name}` : "Rollout not found" };
}

export default async function RolloutPage(props: Props) {
  const { id } = await props.params;
  // The stages come with the page (the same read as the metadata's); the island keeps them live.
  const [visible, { principal, state, now }] = await Promise.all([visibleRollout(id), openPage("/rollouts/[id]", props)]);
  if (!visible) notFound();
  return (
    <PageHydration state={state} now={now}>
      <RolloutView id={id} canAct={hasRole(visible.role, "operator")} canListGroups={hasRole(principal.role, "viewer")} />
    </PageHydration>
  );
}
