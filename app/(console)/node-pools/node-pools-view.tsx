"use client";

import Link from "next/link";
import { useState } from "react";
import { useCapacity, useLabelKeys, type Capacity } from "@/lib/client/node-pools";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { CapacityCharts } from "@/components/node-pools/capacity-charts";
import { formatMemory } from "@/components/ui/format";
import { CapacityTable } from "@/components/node-pools/capacity-table";
import { DistributionBarChart } from "@/components/ui/charts/distribution-bar-chart";
import { HorizontalBarChart, horizontalChartHeight } from "@/components/ui/charts/horizontal-bar-chart";
import { LabelKeySelect } from "@/components/node-pools/label-key-select";
import { NodePoolsSkeleton } from "@/components/node-pools/node-pools-skeleton";
import { LocalTime } from "@/components/ui/local-time";
import { StatCard } from "@/components/ui/stat-card";
import { kubernetesByMinor } from "@/components/versions/version-math";

const KUBELET_COLOR = "#0ea5e9";
const INSTANCE_COLOR = "#6366f1";
// Region and environment have their own cards; the label card starts on the next key there is.
const FIXED_KEYS = ["region", "env"];

function Totals({ capacity }: { capacity: Capacity }) {
  const sum = (k: "clusters" | "pools" | "nodes" | "readyNodes" | "cpuCores" | "memoryGiB") =>
    capacity.rows.reduce((s, r) => s + r[k], 0);
  const notReady = sum("nodes") - sum("readyNodes");
  return (
    <div className="grid grid-cols-2 gap-4 sm:grid-cols-3 xl:grid-cols-6">
      <StatCard label="Clusters with pools" value={sum("clusters").toLocaleString("en-US")} />
      <StatCard label="Node pools" value={sum("pools").toLocaleString("en-US")} />
      <StatCard
        label="Nodes ready"
        value={`${sum("readyNodes").toLocaleString("en-US")} / ${sum("nodes").toLocaleString("en-US")}`}
        tone={notReady ? "amber" : "green"}
        hint={notReady ? `${notReady.toLocaleString("en-US")} not ready` : "all ready"}
        testId="nodes-ready"
      />
      <StatCard label="CPU cores" value={sum("cpuCores").toLocaleString("en-US")} />
      <StatCard label="Memory" value={formatMemory(sum("memoryGiB"))} />
      <StatCard
        label="Pools retiring"
        value={capacity.retiring.toLocaleString("en-US")}
        tone={capacity.retiring ? "amber" : "neutral"}
        hint="draining before removal"
      />
    </div>
  );
}

/** Pools of NotReady clusters, left out of the figures above: their numbers are the last reported. */
function StaleNotice({ stale }: { stale: Capacity["notReady"] }) {
  if (!stale.pools) return null;
  return (
    <p
      data-testid="stale-pools"
      className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <span className="font-medium">
        {stale.pools.toLocaleString("en-US")} node {stale.pools === 1 ? "pool" : "pools"} ({stale.nodes.toLocaleString("en-US")}{" "}
        {stale.nodes === 1 ? "node" : "nodes"}) on {stale.clusters.toLocaleString("en-US")} NotReady{" "}
        {stale.clusters === 1 ? "cluster" : "clusters"}
      </span>{" "}
      are counted apart from the figures here: they are as last reported
      {stale.asOf ? (
        <>
          , as of <LocalTime iso={stale.asOf} format="datetime" /> (the oldest last heartbeat)
        </>
      ) : null}
      .{" "}
      <Link href="/clusters?status=NotReady" prefetch={false} className="font-medium underline">
        Show the NotReady clusters
      </Link>
    </p>
  );
}

function CapacityCard({ by, title }: { by: string; title: string }) {
  const capacity = useCapacity(by);
  return (
    <Card title={`Capacity by ${title}`}>
      {capacity.isPending ? (
        <Skeleton className="h-48" />
      ) : capacity.isError ? (
        <ErrorState message={capacity.error.message} onRetry={() => void capacity.refetch()} />
      ) : (
        <CapacityCharts capacity={capacity.data} title={title} />
      )}
    </Card>
  );
}

function LabelCapacityCard() {
  const keys = useLabelKeys();
  const [chosen, setChosen] = useState<string | null>(null);
  const offered = keys.data ?? FIXED_KEYS;
  const by = chosen ?? offered.find((k) => !FIXED_KEYS.includes(k)) ?? "region";
  const capacity = useCapacity(by);
  return (
    <Card
      title="Capacity by label"
      action={
        <LabelKeySelect
          key={offered.join()}
          keys={offered.includes(by) ? offered : [...offered, by]}
          value={by}
          onChange={setChosen}
        />
      }
    >
      {capacity.isPending ? (
        <Skeleton className="h-40" />
      ) : capacity.isError ? (
        <ErrorState message={capacity.error.message} onRetry={() => void capacity.refetch()} />
      ) : (
        <div className={capacity.isPlaceholderData ? "opacity-60 transition-opacity" : ""}>
          <CapacityTable capacity={capacity.data} />
        </div>
      )}
    </Card>
  );
}

export function NodePoolsView() {
  // Kubelet versions, instance types and the retiring count are fleet-wide: any grouping carries them.
  const byRegion = useCapacity("region");
  if (byRegion.isPending) return <NodePoolsSkeleton />;
  if (byRegion.isError)
    return (
      <ErrorState title="Could not load node pools" message={byRegion.error.message} onRetry={() => void byRegion.refetch()} />
    );
  const fleet = byRegion.data;
  if (fleet.rows.length === 0)
    return (
      <EmptyState title="No node pools reported yet">
        Agents report their clusters&apos; node pools with every heartbeat; capacity appears here as soon as one does.
      </EmptyState>
    );
  const kubelets = kubernetesByMinor(fleet.kubeletVersions.map((k) => ({ version: k.version, count: k.nodes })));
  return (
    <div className="space-y-6">
      <Totals capacity={fleet} />
      <StaleNotice stale={fleet.notReady} />
      <CapacityCard by="region" title="region" />
      <CapacityCard by="env" title="environment" />
      <LabelCapacityCard />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card title="Kubelet versions">
          <DistributionBarChart
            label="Nodes per kubelet minor version"
            unit="nodes"
            // As tall as the instance types beside it, so the two cards end level.
            height={Math.max(220, horizontalChartHeight(fleet.instanceTypes.length))}
            bars={kubelets.map((k) => ({
              name: k.minor,
              value: k.count,
              color: KUBELET_COLOR,
              note: k.patches.join(", "),
              href: `/clusters?kubelet=${encodeURIComponent(k.minor)}`,
            }))}
          />
        </Card>
        <Card title="Instance types">
          <HorizontalBarChart
            label="Nodes per instance type"
            description={`${fleet.instanceTypes.length} instance types; the most common is ${fleet.instanceTypes[0]?.type ?? "none"} with ${fleet.instanceTypes[0]?.nodes.toLocaleString("en-US") ?? 0} nodes.`}
            rows={fleet.instanceTypes.map((t) => ({ name: t.type, nodes: t.nodes }))}
            category="Instance type"
            series={[{ key: "nodes", name: "Nodes", color: INSTANCE_COLOR }]}
            href={(row) => `/clusters?instanceType=${encodeURIComponent(row.name)}`}
          />
        </Card>
      </div>
    </div>
  );
}
