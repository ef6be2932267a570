import Link from "next/link";
import type { Overview } from "@/lib/client/overview";

const linkClass = "font-medium tabular-nums text-sky-700 hover:underline dark:text-sky-400";

/** Clusters that are up but not plainly healthy, each count a link to the list filtered by it. */
export function HealthLinks({ health }: { health: Overview["health"] }) {
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="health-links">
      <Link href="/clusters?health=flapping" prefetch={false} className={linkClass} data-testid="health-flapping">
        {health.flapping.toLocaleString("en-US")} flapping
      </Link>{" "}
      (more than {health.flappingThresholdPerHour} status changes in the last hour) ·{" "}
      <Link href="/clusters?health=degraded" prefetch={false} className={linkClass} data-testid="health-degraded">
        {health.degraded.toLocaleString("en-US")} degraded
      </Link>{" "}
      (API server slow or failing)
    </p>
  );
}
