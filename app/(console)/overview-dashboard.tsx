"use client";

import dynamic from "next/dynamic";
import { useOverview } from "@/lib/client/overview";
import { useLiveEvents, useLiveHeartbeatRate } from "@/lib/client/live-events";
import { FleetEmptyState } from "@/components/overview/fleet-empty-state";
import { LiveIndicator } from "@/components/ui/live-indicator";
import { NeedsAttention } from "@/components/overview/needs-attention";
import { RegistrationSuccess } from "@/components/overview/registration-success";
import { ProvisioningTime } from "@/components/overview/provisioning-time";
import { StatusCountCards } from "@/components/overview/status-count-cards";
import { HealthLinks } from "@/components/overview/health-links";
import { WaitingDecisions } from "@/components/overview/waiting-decisions";
import { ThresholdNote } from "@/components/clusters/threshold-note";
import { Card } from "@/components/ui/card";
import { EnrollmentSummary } from "@/components/overview/enrollment-summary";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import Link from "next/link";
import { OverviewSkeleton } from "./overview-skeleton";

// The charting library is most of this page's JavaScript: loaded after the counts, so the numbers
// (what people open the page for) are on screen and usable first. Placeholders keep the height.
const HeartbeatRateChart = dynamic(() => import("@/components/overview/heartbeat-rate-chart").then((m) => m.HeartbeatRateChart), {
  ssr: false,
  loading: () => <Skeleton className="h-[200px]" />,
});
const StatusHistoryChart = dynamic(() => import("@/components/overview/status-history-chart").then((m) => m.StatusHistoryChart), {
  ssr: false,
  loading: () => <Skeleton className="h-[300px]" />,
});

export function OverviewDashboard({ canMint }: { canMint: boolean }) {
  const live = useLiveEvents();
  const overview = useOverview();
  const header = (
    <PageHeader
      title="Overview"
      description={
        overview.data ? <ThresholdNote seconds={overview.data.notReadyThresholdSeconds} /> : "The state of your fleet, live."
      }
      actions={<LiveIndicator state={live} />}
    />
  );

  if (overview.isPending) {
    return (
      <>
        {header}
        <OverviewSkeleton />
      </>
    );
  }
  if (overview.isError) {
    return (
      <>
        {header}
        <ErrorState
          title="Could not load the overview"
          message={overview.error.message}
          onRetry={() => void overview.refetch()}
        />
      </>
    );
  }
  const o = overview.data;
  return (
    <>
      {header}
      {o.scope && <TeamScopeNote teams={o.scope.teams} />}
      {o.counts.total === 0 ? (
        o.scope ? (
          <EmptyState title="No clusters in your teams' scopes yet">
            A cluster joins a team by its labels: once one carries the labels your team&apos;s scope names, it shows here.{" "}
            <Link href="/access" className="font-medium text-sky-700 underline dark:text-sky-400">
              See your teams and their scopes
            </Link>
            .
          </EmptyState>
        ) : (
          <FleetEmptyState canMint={canMint} />
        )
      ) : (
        <div className="space-y-6">
          <div className="space-y-2">
            <StatusCountCards counts={o.counts} of={o.scope ? "your clusters" : "fleet"} />
            <HealthLinks health={o.health} />
          </div>
          {o.decisions && <WaitingDecisions decisions={o.decisions} />}
          <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
            {/* The live rate is the fleet's (its summary): a team member's chart stands alone. */}
            <Card title="Heartbeats per second" action={o.scope ? undefined : <CurrentRate />} className="min-w-0">
              <HeartbeatRateChart minutes={o.heartbeatsPerMinute} now={o.now} />
            </Card>
            {o.statusHistory && (
              <Card title="Clusters by status, last 6 hours" className="min-w-0">
                <StatusHistoryChart samples={o.statusHistory} />
              </Card>
            )}
            {!o.registrations && (
              <>
                <Card title="Enrollment" className="min-w-0">
                  <EnrollmentSummary enrollment={o.enrollment} />
                </Card>
                {/* Provisioning is per cluster: a team member sees their clusters' own. */}
                <Card title="Provisioning time" className="min-w-0">
                  <ProvisioningTime provisioning={o.provisioning} />
                </Card>
              </>
            )}
          </div>
          {o.registrations && (
            <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
              <Card title={`Registrations, last ${o.registrations.windowHours} hours`} className="@container min-w-0">
                <RegistrationSuccess registrations={o.registrations} />
              </Card>
              {/* Beside the registration objective: the Provisioning phase has one too. */}
              <Card title="Provisioning time" className="min-w-0">
                <ProvisioningTime provisioning={o.provisioning} />
              </Card>
              <Card title="Enrollment" className="min-w-0">
                <EnrollmentSummary enrollment={o.enrollment} />
              </Card>
            </div>
          )}
          <NeedsAttention attention={o.attention} notReadyTotal={o.counts.NotReady} />
        </div>
      )}
    </>
  );
}

/** Whose clusters a team member's Overview counts, and what it leaves to the fleet's roles. */
function TeamScopeNote({ teams }: { teams: string[] }) {
  return (
    <p className="-mt-2 mb-4 text-sm text-slate-600 dark:text-slate-400" data-testid="overview-scope">
      The clusters of your team{teams.length === 1 ? "" : "s"} <span className="font-medium">{teams.join(", ")}</span>, and only
      those. Registrations, approvals and the fleet&apos;s status history are for fleet roles.{" "}
      <Link href="/access" className="font-medium text-sky-700 underline dark:text-sky-400">
        Your access
      </Link>
    </p>
  );
}

/** The latest rate from the live summary (the chart's points are whole minutes). */
function CurrentRate() {
  const rate = useLiveHeartbeatRate();
  if (rate === null) return null;
  return (
    <span className="text-xs text-slate-500 dark:text-slate-400">
      now <span className="font-medium tabular-nums text-slate-900 dark:text-slate-100">{rate.toLocaleString("en-US")}</span>/s
    </span>
  );
}
