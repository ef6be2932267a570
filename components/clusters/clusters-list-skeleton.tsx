import { PageHeaderSkeleton, Skeleton, TableSkeleton } from "@/components/ui/skeleton";

/** The cluster list's shape while it loads; `withHeader` adds the page title and filters (loading.tsx). */
export function ClustersListSkeleton({ withHeader }: { withHeader?: boolean }) {
  return (
    <div className="space-y-4">
      {withHeader && (
        <>
          <div className="mb-6">
            <PageHeaderSkeleton />
          </div>
          {/* On a phone the filters are folded behind one button. */}
          <Skeleton className="h-9 w-28 sm:hidden" />
          <div className="grid grid-cols-2 gap-3 max-sm:hidden lg:grid-cols-12">
            <Skeleton className="col-span-2 h-[62px] lg:col-span-3" />
            <Skeleton className="col-span-2 h-[62px] lg:col-span-5" />
            <Skeleton className="h-[62px] lg:col-span-2" />
            <Skeleton className="h-[62px] lg:col-span-2" />
          </div>
          <Skeleton className="h-9 w-full" />
        </>
      )}
      <div className="rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
        <TableSkeleton rows={12} label="Loading clusters" />
      </div>
    </div>
  );
}
