import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { hasRole } from "@/lib/domain/roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import { db } from "@/lib/server/db/client";
import { ClusterView } from "./cluster-view";

type Props = { params: Promise<{ id: string }> };

// One indexed lookup (shared by the metadata and the page), so a wrong link gets a real 404 and
// the tab shows the cluster's name; everything else is fetched (and kept live) by the client island.
const clusterName = cache(async (id: string): Promise<string | null> => {
  const c = await db().cluster.findUnique({ where: { id }, select: { name: true } });
  return c?.name ?? null;
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: (await clusterName(id)) ?? "Cluster not found" };
}

export default async function ClusterPage({ params }: Props) {
  const principal = await requirePage("viewer");
  const { id } = await params;
  if (!(await clusterName(id))) notFound();
  return <ClusterView id={id} canEdit={hasRole(principal.role, "operator")} />;
}
