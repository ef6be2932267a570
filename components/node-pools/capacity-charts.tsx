"use client";

import type { Capacity } from "@/lib/client/node-pools";
import { HorizontalBarChart } from "@/components/ui/charts/horizontal-bar-chart";
import { formatMemory } from "@/components/ui/format";
import { clustersWithLabel } from "./cluster-links";

// Mid-tones readable on both themes (SVG fills cannot follow the dark: variant).
const READY = "#10b981";
const NOT_READY = "#f43f5e";
const CPU = "#6366f1";
const MEMORY = "#0ea5e9";
// Last reported, not live: a muted tone, apart from the live ready/not-ready nodes.
const STALE = "#94a3b8";

function sum(rows: Capacity["rows"], key: "nodes" | "readyNodes" | "cpuCores" | "memoryGiB") {
  return rows.reduce((s, r) => s + r[key], 0);
}

/** Nodes (ready and not), CPU and memory per value of one label, as three bar charts side by side. */
export function CapacityCharts({ capacity, title }: { capacity: Capacity; title: string }) {
  const rows = capacity.rows.map((r) => ({
    name: r.key,
    ready: r.readyNodes,
    notReady: Math.max(0, r.nodes - r.readyNodes),
    stale: r.notReady.nodes,
    cpu: r.cpuCores,
    memory: r.memoryGiB,
  }));
  // Every bar opens the cluster list filtered to its row; the stale bar also to NotReady clusters.
  const href = (r: { name: string }, series: string) =>
    clustersWithLabel(capacity.by, r.name, series === "stale" ? "NotReady" : undefined);
  const stale = capacity.rows.reduce((s, r) => s + r.notReady.nodes, 0);
  const top = (key: "nodes" | "cpuCores" | "memoryGiB") => [...capacity.rows].sort((a, b) => b[key] - a[key])[0]?.key ?? "none";
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
      <div>
        <h3 className="mb-2 text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
          Nodes ready / total
        </h3>
        <HorizontalBarChart
          label={`Nodes by ${title}, ready and not ready`}
          description={
            `${sum(capacity.rows, "readyNodes").toLocaleString("en-US")} of ${sum(capacity.rows, "nodes").toLocaleString("en-US")} nodes ready across ${capacity.rows.length} values of ${capacity.by}; most nodes in ${top("nodes")}.` +
            (stale ? ` ${stale.toLocaleString("en-US")} more nodes on NotReady clusters, as last reported.` : "")
          }
          rows={rows}
          category={capacity.by}
          series={[
            { key: "ready", name: "Ready", color: READY },
            { key: "notReady", name: "Not ready", color: NOT_READY },
            ...(stale ? [{ key: "stale" as const, name: "On NotReady clusters (last reported)", color: STALE }] : []),
          ]}
          stacked
          href={href}
          endLabel={(r) =>
            `${r.ready.toLocaleString("en-US")} / ${(r.ready + r.notReady).toLocaleString("en-US")}${r.stale ? ` +${r.stale.toLocaleString("en-US")}` : ""}`
          }
        />
      </div>
      <div>
        <h3 className="mb-2 text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">CPU cores</h3>
        <HorizontalBarChart
          label={`CPU cores by ${title}`}
          description={`${sum(capacity.rows, "cpuCores").toLocaleString("en-US")} cores in all; most in ${top("cpuCores")}.`}
          rows={rows}
          category={capacity.by}
          series={[{ key: "cpu", name: "CPU cores", color: CPU }]}
          href={href}
        />
      </div>
      <div>
        <h3 className="mb-2 text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">Memory</h3>
        <HorizontalBarChart
          label={`Memory by ${title}`}
          description={`${formatMemory(sum(capacity.rows, "memoryGiB"))} in all; most in ${top("memoryGiB")}.`}
          rows={rows}
          category={capacity.by}
          series={[{ key: "memory", name: "Memory", color: MEMORY }]}
          format={formatMemory}
          href={href}
          axisFormat={(gib) => (gib >= 1024 ? `${Math.round(gib / 1024)} TiB` : `${Math.round(gib)} GiB`)}
        />
      </div>
    </div>
  );
}
