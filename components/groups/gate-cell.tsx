"use client";

import Link from "next/link";
import { useGate } from "@/lib/client/gate";
import { Skeleton } from "@/components/ui/skeleton";
import { GateBadge } from "./gate-parts";

/**
 * The Groups table's Gate column: GET /api/v1/gate?group= with no tolerance, as a pipeline asks
 * it by default, linking to the group's gate view. A group whose selector is unusable has none.
 */
export function GateCell({ group, usable }: { group: string; usable: boolean }) {
  const gate = useGate({ group }, { enabled: usable });
  if (!usable) return <span className="text-slate-500 dark:text-slate-400">—</span>;
  if (gate.isPending) return <Skeleton className="h-5 w-20" />;
  return (
    <Link
      href={`/groups/${encodeURIComponent(group)}/gate`}
      className="group inline-flex flex-col gap-0.5 rounded-sm"
      data-testid="group-gate"
      aria-label={
        gate.data ? `Gate of ${group}: ${gate.data.pass ? "pass" : "fail"}, ${gate.data.tolerance.text}` : `Gate of ${group}`
      }
    >
      {gate.data ? (
        <>
          <GateBadge pass={gate.data.pass} />
          <span className="text-xs whitespace-nowrap text-slate-600 group-hover:underline dark:text-slate-400">
            {gate.data.tolerance.unready} of {gate.data.tolerance.total} failing
          </span>
        </>
      ) : (
        <span className="text-xs text-rose-700 group-hover:underline dark:text-rose-400">Could not evaluate</span>
      )}
    </Link>
  );
}
