import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { hasRole } from "@/lib/domain/roles";
import { canSeeCluster, clusterAccess } from "@/lib/server/auth/page-auth";
import { ApiError } from "@/lib/server/api/errors";
import { openPage } from "@/lib/server/console/open-page";
import { deregistrationOnce } from "@/lib/server/console/page-queries";
import { DeregisterWizard } from "./deregister-wizard";
import { PageHydration } from "@/components/shell/page-hydration";

type Props = { params: Promise<{ id: string }> };

/** The wizard's state, or null for an id that never was a cluster (it still works after removal). */
async function load(id: string) {
  if (!(await canSeeCluster(id))) return null;
  try {
    return await deregistrationOnce(id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") return null;
    throw err;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const d = await load((await params).id);
  return { title: d ? `Deregister ${d.clusterName ?? d.clusterId}` : "Cluster not found" };
}

export default async function DeregisterPage(props: Props) {
  const { id } = await props.params;
  // The current step comes with the page (no spinner); the island keeps it live.
  const [initial, { principal, state, now }] = await Promise.all([load(id), openPage("/clusters/[id]/deregister", props)]);
  if (!initial) notFound();
  const access = await clusterAccess(principal, id);
  return (
    <PageHydration state={state} now={now}>
      <DeregisterWizard clusterId={id} canAct={hasRole(access?.role ?? null, "operator")} />
    </PageHydration>
  );
}
