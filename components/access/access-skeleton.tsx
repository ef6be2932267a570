import { Skeleton } from "@/components/ui/skeleton";

/** "Your access" while it loads: the fleet role's card and the teams' card. */
export function AccessSkeleton() {
  return (
    <div role="status" aria-label="Loading your access" className="space-y-6">
      {[0, 1].map((i) => (
        <div key={i} className="space-y-3 rounded-lg border border-slate-200 p-5 dark:border-slate-800">
          <Skeleton className="h-5 w-40" />
          <Skeleton className="h-4 w-[28rem] max-w-full" />
          <Skeleton className="h-24 w-full" />
        </div>
      ))}
    </div>
  );
}
