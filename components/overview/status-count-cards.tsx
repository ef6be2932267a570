import Link from "next/link";
import type { StatusCounts } from "@/lib/client/overview";
import type { ClusterStatus } from "@/lib/domain/status";
import { Skeleton } from "@/components/ui/skeleton";

const CARDS = [
  { key: "Ready", label: "Ready", dot: "bg-emerald-500", hint: "Heartbeats arriving within the threshold" },
  { key: "NotReady", label: "NotReady", dot: "bg-rose-500", hint: "Heartbeats stopped or API server down" },
  { key: "Pending", label: "Pending", dot: "bg-slate-400", hint: "Registered, waiting for a first heartbeat" },
  { key: "Draining", label: "Draining", dot: "bg-amber-500", hint: "Being drained before removal" },
] as const satisfies readonly { key: ClusterStatus; label: string; dot: string; hint: string }[];

const cardClass =
  "group block h-full rounded-lg border border-slate-200 bg-white p-5 shadow-sm transition-colors hover:border-sky-400 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-sky-700";

/** Clusters per status, each card a link to the list filtered by that status; `of`: what the counts are a share of. */
export function StatusCountCards({ counts, of = "fleet" }: { counts: StatusCounts; of?: string }) {
  const share = (n: number) => (counts.total ? `${Math.round((n / counts.total) * 1000) / 10} % of ${of}` : "—");
  return (
    <ul className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-5" aria-label="Clusters by status">
      {CARDS.map((c) => (
        <li key={c.key}>
          <Link
            href={`/clusters?status=${c.key}`}
            prefetch={false}
            className={cardClass}
            data-testid={`count-${c.key}`}
            title={c.hint}
          >
            <span className="flex items-center gap-2 text-sm font-medium text-slate-600 dark:text-slate-400">
              <span aria-hidden className={`h-2 w-2 rounded-full ${c.dot}`} />
              {c.label}
            </span>
            <span className="mt-2 block text-3xl font-semibold tabular-nums" data-testid="count-value">
              {counts[c.key].toLocaleString("en-US")}
            </span>
            <span className="mt-1 block text-xs tabular-nums text-slate-500 dark:text-slate-400">{share(counts[c.key])}</span>
          </Link>
        </li>
      ))}
      <li>
        <Link href="/clusters" prefetch={false} className={cardClass} data-testid="count-total" title="Every registered cluster">
          <span className="flex items-center gap-2 text-sm font-medium text-slate-600 dark:text-slate-400">All clusters</span>
          <span className="mt-2 block text-3xl font-semibold tabular-nums" data-testid="count-value">
            {counts.total.toLocaleString("en-US")}
          </span>
          <span className="mt-1 block text-xs tabular-nums text-slate-500 dark:text-slate-400">
            {counts.Deregistering + counts.Provisioning > 0
              ? `${counts.Deregistering} deregistering · ${counts.Provisioning} provisioning`
              : "in the fleet"}
          </span>
        </Link>
      </li>
    </ul>
  );
}

export function StatusCountCardsSkeleton() {
  return (
    <div className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-5">
      {Array.from({ length: 5 }, (_, i) => (
        <div key={i} className="rounded-lg border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900">
          <Skeleton className="h-4 w-20" />
          <Skeleton className="mt-3 h-8 w-16" />
          <Skeleton className="mt-2 h-3 w-24" />
        </div>
      ))}
    </div>
  );
}
