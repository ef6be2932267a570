import Link from "next/link";
import type { Overview } from "@/lib/client/overview";

const linkClass = "font-medium text-sky-700 hover:underline dark:text-sky-400";

/** The enrolled share of the fleet, and how many clusters each checklist item holds back. */
export function EnrollmentSummary({ enrollment }: { enrollment: Overview["enrollment"] }) {
  if (!enrollment) {
    return (
      <p className="text-sm text-slate-500 dark:text-slate-400">
        The first enrollment check runs within seconds of the server starting.
      </p>
    );
  }
  const share = enrollment.total ? Math.floor((enrollment.enrolled / enrollment.total) * 1000) / 10 : 0;
  const blocked = Object.entries(enrollment.blockedBy).sort((a, b) => b[1] - a[1]);
  return (
    <div className="space-y-4">
      <div>
        <p className="text-3xl font-semibold tabular-nums">
          {share}
          <span className="text-lg text-slate-500">%</span>
        </p>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <Link href="/clusters?enrollment=enrolled" prefetch={false} className={linkClass}>
            <span className="tabular-nums">{enrollment.enrolled.toLocaleString("en-US")}</span> of{" "}
            <span className="tabular-nums">{enrollment.total.toLocaleString("en-US")}</span> clusters enrolled
          </Link>{" "}
          (every checklist item passes)
          {enrollment.total > enrollment.enrolled && (
            <>
              {" · "}
              <Link href="/clusters?enrollment=blocked" prefetch={false} className={linkClass} data-testid="enrollment-blocked">
                <span className="tabular-nums">{(enrollment.total - enrollment.enrolled).toLocaleString("en-US")}</span> blocked
              </Link>
            </>
          )}
        </p>
        <div className="mt-2 h-2 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800" aria-hidden>
          <div className="h-full rounded-full bg-emerald-500" style={{ width: `${share}%` }} />
        </div>
      </div>
      {blocked.length === 0 ? (
        <p className="text-sm text-emerald-700 dark:text-emerald-400">No cluster is blocked on any item.</p>
      ) : (
        <ul className="space-y-1.5 text-sm" aria-label="Clusters blocked, by checklist item">
          {blocked.map(([key, n]) => (
            <li key={key} className="flex items-center justify-between gap-3">
              <span className="truncate text-slate-700 dark:text-slate-300">{enrollment.labels[key] ?? key}</span>
              <Link
                href={`/clusters?blockedOn=${encodeURIComponent(key)}`}
                prefetch={false}
                className={`tabular-nums ${linkClass}`}
              >
                {n.toLocaleString("en-US")} blocked
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
