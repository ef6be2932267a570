import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { hasRole } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import { requirePage } from "@/lib/server/auth/page-auth";
import { getRollout } from "@/lib/server/rollouts/get-rollout";
import type { Rollout } from "@/lib/client/rollouts";
import { RolloutView } from "./rollout-view";

type Props = { params: Promise<{ id: string }> };

async function load(id: string) {
  try {
    return await getRollout(id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") return null;
    throw err;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const r = await load((await params).id);
  return { title: r ? `Rollout ${r.name}` : "Rollout not found" };
}

export default async function RolloutPage({ params }: Props) {
  const principal = await requirePage("/rollouts/[id]");
  const { id } = await params;
  // Rendered on the server so the first paint has the stages; the island keeps it live.
  const initial = await load(id);
  if (!initial) notFound();
  return <RolloutView id={id} initial={initial as Rollout} canAct={hasRole(principal.role, "operator")} />;
}
