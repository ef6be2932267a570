import type { Metadata } from "next";
import Link from "next/link";
import { requirePage } from "@/lib/server/auth/page-auth";
import { db } from "@/lib/server/db/client";
import { Card } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState } from "@/components/ui/states";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  await requirePage("viewer");
  const clusters = await db().cluster.count();
  return (
    <>
      <PageHeader title="Overview" description="The state of your fleet at a glance." />
      {clusters === 0 ? (
        <EmptyState title="No clusters registered yet">
          Clusters join the fleet when their agent presents a registration token. Once an operator mints one, the clusters it
          registers appear here.{" "}
          <Link className="text-sky-700 underline dark:text-sky-400" href="/audit">
            See what has happened so far
          </Link>
          .
        </EmptyState>
      ) : (
        <Card title="Clusters">
          <p className="text-3xl font-semibold tabular-nums">{clusters}</p>
        </Card>
      )}
    </>
  );
}
