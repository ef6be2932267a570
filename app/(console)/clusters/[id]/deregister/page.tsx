import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { hasRole } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import { requirePage } from "@/lib/server/auth/page-auth";
import { getDeregistration } from "@/lib/server/lifecycle/deregistration";
import { DeregisterWizard } from "./deregister-wizard";

type Props = { params: Promise<{ id: string }> };

/** The wizard's state, or null for an id that never was a cluster (it still works after removal). */
async function load(id: string) {
  try {
    return await getDeregistration(id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") return null;
    throw err;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const d = await load((await params).id);
  return { title: d ? `Deregister ${d.clusterName ?? d.clusterId}` : "Cluster not found" };
}

export default async function DeregisterPage({ params }: Props) {
  const principal = await requirePage("/clusters/[id]/deregister");
  const { id } = await params;
  // Rendered on the server so the first paint already shows the current step (no spinner).
  const initial = await load(id);
  if (!initial) notFound();
  return <DeregisterWizard clusterId={id} initial={initial} canAct={hasRole(principal.role, "operator")} />;
}
