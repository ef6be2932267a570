export function Skeleton({ className = "" }: { className?: string }) {
  return <div aria-hidden data-skeleton className={`animate-pulse rounded bg-slate-200 dark:bg-slate-800 ${className}`} />;
}

export function TableSkeleton({ rows = 8, label = "Loading" }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-label={label} className="space-y-2">
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} className="h-8 w-full" />
      ))}
    </div>
  );
}

/** A page's title and description while it loads; `breadcrumb` adds the back link above them. */
export function PageHeaderSkeleton({ breadcrumb = false }: { breadcrumb?: boolean }) {
  return (
    <div className="space-y-2">
      {breadcrumb && <Skeleton className="h-4 w-24" />}
      <Skeleton className="h-7 w-48" />
      <Skeleton className="h-4 w-[32rem] max-w-full" />
    </div>
  );
}

/** A list page while it loads: header, the row with the count and the main button, the table. */
export function ListPageSkeleton({ label, rows = 5 }: { label: string; rows?: number }) {
  return (
    <div className="space-y-6">
      <PageHeaderSkeleton />
      <div className="flex items-center justify-between">
        <Skeleton className="h-5 w-24" />
        <Skeleton className="h-9 w-28" />
      </div>
      <TableSkeleton rows={rows} label={label} />
    </div>
  );
}

/** A column of cards while they load, one box per height (Tailwind classes such as "h-56"). */
export function SkeletonStack({ heights, className = "" }: { heights: readonly string[]; className?: string }) {
  return (
    <div className={`space-y-6 ${className}`}>
      {heights.map((h, i) => (
        <Skeleton key={i} className={h} />
      ))}
    </div>
  );
}

/** A row of `count` equal boxes (stat cards, charts side by side); `className` names the grid's columns and gap. */
export function SkeletonRow({ count, height, className }: { count: number; height: string; className: string }) {
  return (
    <div className={`grid ${className}`}>
      {Array.from({ length: count }, (_, i) => (
        <Skeleton key={i} className={height} />
      ))}
    </div>
  );
}
