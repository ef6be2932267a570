import { Skeleton } from "@/components/ui/skeleton";

/** The new-rollout form's shape: four cards and the plan beside them. */
export function RolloutFormSkeleton({ withHeader = false }: { withHeader?: boolean }) {
  return (
    <div role="status" aria-label="Loading the rollout form" className="space-y-6">
      {withHeader && (
        <div className="space-y-2">
          <Skeleton className="h-4 w-24" />
          <Skeleton className="h-7 w-40" />
          <Skeleton className="h-4 w-[30rem]" />
        </div>
      )}
      <div className="grid grid-cols-[minmax(0,1fr)_22rem] items-start gap-6">
        <div className="space-y-6">
          <Skeleton className="h-36" />
          <Skeleton className="h-44" />
          <Skeleton className="h-56" />
          <Skeleton className="h-52" />
        </div>
        <Skeleton className="h-72" />
      </div>
    </div>
  );
}

/** One rollout's shape: header, totals, stages, clusters. */
export function RolloutDetailSkeleton() {
  return (
    <div role="status" aria-label="Loading the rollout" className="space-y-6">
      <div className="space-y-2">
        <Skeleton className="h-4 w-24" />
        <Skeleton className="h-7 w-64" />
        <Skeleton className="h-4 w-96" />
      </div>
      <div className="grid grid-cols-5 gap-4">
        {Array.from({ length: 5 }, (_, i) => (
          <Skeleton key={i} className="h-[5.5rem]" />
        ))}
      </div>
      <div className="grid grid-cols-[minmax(0,1fr)_20rem] gap-6">
        <Skeleton className="h-56" />
        <Skeleton className="h-56" />
      </div>
      <Skeleton className="h-72" />
    </div>
  );
}
