import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { canSeeCluster, clusterAccess } from "@/lib/server/auth/page-auth";
import { db } from "@/lib/server/db/client";
import { ClusterView } from "./cluster-view";
import { PageHydration } from "@/components/shell/page-hydration";

type Props = { params: Promise<{ id: string }> };

// One indexed lookup (shared by the metadata and the page), so a wrong link gets a real 404 and
// the tab shows the cluster's name. The detail comes with the page; the island keeps it live.
const clusterName = cache(async (id: string): Promise<string | null> => {
  if (!(await canSeeCluster(id))) return null;
  const c = await db().cluster.findUnique({ where: { id }, select: { name: true } });
  return c?.name ?? null;
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: (await clusterName(id)) ?? "Cluster not found" };
}

export default async function ClusterPage(props: Props) {
  const { id } = await props.params;
  const [name, { principal, state, now }] = await Promise.all([clusterName(id), openPage("/clusters/[id]", props)]);
  if (!name) notFound();
  const access = await clusterAccess(principal, id);
  return (
    <PageHydration state={state} now={now}>
      <ClusterView id={id} canEdit={hasRole(access?.role ?? null, "operator")} />
    </PageHydration>
  );
}
