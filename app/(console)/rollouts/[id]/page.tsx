import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { hasRole } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import { openPage } from "@/lib/server/console/open-page";
import { rolloutOnce } from "@/lib/server/console/page-queries";
import { RolloutView } from "./rollout-view";
import { PageHydration } from "@/components/shell/page-hydration";

type Props = { params: Promise<{ id: string }> };

async function load(id: string) {
  try {
    return await rolloutOnce(id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") return null;
    throw err;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const r = await load((await params).id);
  return { title: r ? `Rollout ${r.name}` : "Rollout not found" };
}

export default async function RolloutPage(props: Props) {
  const { id } = await props.params;
  // The stages come with the page (the same read as the metadata's); the island keeps them live.
  const [rollout, { principal, state, now }] = await Promise.all([load(id), openPage("/rollouts/[id]", props)]);
  if (!rollout) notFound();
  return (
    <PageHydration state={state} now={now}>
      <RolloutView id={id} canAct={hasRole(principal.role, "operator")} />
    </PageHydration>
  );
}
