import { PageHeaderSkeleton, Skeleton, SkeletonRow, SkeletonStack } from "@/components/ui/skeleton";

/** The new-rollout form's shape: four cards and the plan beside them. */
export function RolloutFormSkeleton({ withHeader = false }: { withHeader?: boolean }) {
  return (
    <div role="status" aria-label="Loading the rollout form" className="space-y-6">
      {withHeader && <PageHeaderSkeleton breadcrumb />}
      <div className="grid grid-cols-[minmax(0,1fr)_22rem] items-start gap-6">
        <SkeletonStack heights={["h-36", "h-44", "h-56", "h-52"]} />
        <Skeleton className="h-72" />
      </div>
    </div>
  );
}

/** One rollout's shape: header, totals, stages, clusters. */
export function RolloutDetailSkeleton() {
  return (
    <div role="status" aria-label="Loading the rollout" className="space-y-6">
      <PageHeaderSkeleton breadcrumb />
      <SkeletonRow count={5} height="h-[5.5rem]" className="grid-cols-5 gap-4" />
      <SkeletonRow count={2} height="h-56" className="grid-cols-[minmax(0,1fr)_20rem] gap-6" />
      <Skeleton className="h-72" />
    </div>
  );
}
