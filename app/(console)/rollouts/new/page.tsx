import type { Metadata } from "next";
import Link from "next/link";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { NewRolloutView } from "./new-rollout-view";

export const metadata: Metadata = { title: "New rollout" };

export default async function NewRolloutPage() {
  await requirePage("operator");
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
      <NewRolloutView />
    </>
  );
}
