import { Button } from "@/components/ui/button";

/** "51–100 of 1,234" with Previous/Next over server cursors. `pageIndex` is null when unknown (a shared link). */
export function ListPager({
  pageIndex,
  pageSize,
  shown,
  total,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
}: {
  pageIndex: number | null;
  pageSize: number;
  shown: number;
  total: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  const first = pageIndex === null ? null : pageIndex * pageSize + 1;
  return (
    <nav aria-label="Pages" className="flex items-center gap-2">
      <p className="tabular-nums text-slate-600 dark:text-slate-400">
        {first === null
          ? `${shown} of ${total.toLocaleString()}`
          : `${first.toLocaleString()}–${(first + shown - 1).toLocaleString()} of ${total.toLocaleString()}`}
      </p>
      <Button
        variant="secondary"
        className="disabled:opacity-50"
        disabled={!hasPrevious}
        onClick={onPrevious}
        title={pageIndex === null ? "Back to the first page" : undefined}
      >
        Previous
      </Button>
      <Button variant="secondary" className="disabled:opacity-50" disabled={!hasNext} onClick={onNext}>
        Next
      </Button>
    </nav>
  );
}
