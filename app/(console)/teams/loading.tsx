import { PageHeader } from "@/components/ui/page-header";
import { TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <>
      <PageHeader
        title="Teams"
        description="Each team sees and acts on the clusters its label selector matches, and only those. New clusters join a team by their labels."
      />
      <TableSkeleton rows={3} label="Loading teams" />
    </>
  );
}
