import Link from "next/link";
import type { GroupCounts } from "@/lib/client/groups";

const link = "hover:underline focus-visible:underline";

/**
 * A group's clusters as one stacked bar (Ready, NotReady, other) with the numbers spelled out; the
 * total and the NotReady count open the cluster list filtered to them.
 */
export function GroupCountsBar({ counts, groupId }: { counts: GroupCounts; groupId: string }) {
  const list = (status?: string) => `/clusters?${new URLSearchParams({ group: groupId, ...(status ? { status } : {}) })}`;
  const { total, Ready, NotReady, other } = counts;
  const pct = (n: number) => (total > 0 ? `${(n / total) * 100}%` : "0%");
  return (
    <div className="w-60 space-y-1.5">
      <div className="flex items-baseline justify-between gap-2">
        <Link href={list()} prefetch={false} className={`font-medium tabular-nums ${link}`}>
          {total.toLocaleString("en-US")}{" "}
          <span className="font-normal text-slate-500 dark:text-slate-400">cluster{total === 1 ? "" : "s"}</span>
        </Link>
      </div>
      <div aria-hidden className="flex h-1.5 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800">
        <span className="h-full bg-emerald-500" style={{ width: pct(Ready) }} />
        <span className="h-full bg-rose-500" style={{ width: pct(NotReady) }} />
        <span className="h-full bg-slate-400 dark:bg-slate-500" style={{ width: pct(other) }} />
      </div>
      <div className="flex flex-wrap gap-x-3 gap-y-0.5 text-xs whitespace-nowrap text-slate-600 tabular-nums dark:text-slate-400">
        <span className="inline-flex items-center gap-1">
          <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-emerald-500" />
          {Ready.toLocaleString("en-US")} Ready
        </span>
        <Link href={list("NotReady")} prefetch={false} className={`inline-flex items-center gap-1 ${link}`}>
          <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-rose-500" />
          {NotReady.toLocaleString("en-US")} NotReady
        </Link>
        {other > 0 && (
          <span className="inline-flex items-center gap-1" title="Pending, Draining, Deregistering or Provisioning">
            <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-slate-400 dark:bg-slate-500" />
            {other.toLocaleString("en-US")} other
          </span>
        )}
      </div>
    </div>
  );
}
