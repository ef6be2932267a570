import { Button } from "@/components/ui/button";

/** "1,234", or "1,000+" when the server stopped counting at 1,000. */
function formatTotal(total: number, capped = false): string {
  return `${total.toLocaleString("en-US")}${capped ? "+" : ""}`;
}

/** "51–100 of 1,234" with Previous/Next over server cursors. `pageIndex` is null when unknown (a shared link). */
export function ListPager({
  pageIndex,
  pageSize,
  shown,
  total,
  totalCapped = false,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
}: {
  pageIndex: number | null;
  pageSize: number;
  shown: number;
  total: number;
  totalCapped?: boolean;
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
          ? `${shown} of ${formatTotal(total, totalCapped)}`
          : `${first.toLocaleString("en-US")}–${(first + shown - 1).toLocaleString("en-US")} of ${formatTotal(total, totalCapped)}`}
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
