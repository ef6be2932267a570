import type { ReactNode } from "react";
import type { ClusterListItem } from "@/lib/client/clusters";
import { labelValue } from "@/lib/domain/labels";
import { ClusterReasons } from "./cluster-reasons";

/**
 * The cluster list's optional columns, in display order: the column chooser offers them and the
 * table renders the chosen ones. Adding a column is one entry here.
 */
export type OptionalColumn = {
  key: string;
  label: string;
  className?: string;
  /** shown until the person chooses otherwise */
  defaultShown?: boolean;
  /** rendered right after Status instead of at the end */
  besideStatus?: boolean;
  render: (c: ClusterListItem) => ReactNode;
};

const mono = "truncate font-mono text-xs text-slate-600 dark:text-slate-400";

export const OPTIONAL_COLUMNS: readonly OptionalColumn[] = [
  {
    // Why the cluster is not plainly healthy (lib/domain/cluster-reason.ts, worded in cluster-reasons.tsx).
    key: "reason",
    label: "Reason",
    className: "w-[18%]",
    defaultShown: true,
    besideStatus: true,
    render: (c) => <ClusterReasons reasons={c.reasons} />,
  },
  {
    key: "kubernetes",
    label: "Kubernetes",
    className: "w-[10%]",
    defaultShown: true,
    render: (c) => <span className={mono}>{c.kubernetesVersion ?? "unknown"}</span>,
  },
  {
    key: "agent",
    label: "Agent",
    className: "w-[8%]",
    defaultShown: true,
    render: (c) => <span className={mono}>{c.agentVersion ?? "—"}</span>,
  },
  {
    key: "region",
    label: "Region",
    className: "w-[9%]",
    render: (c) => <span className="truncate text-slate-600 dark:text-slate-400">{labelValue(c.labels, "region") || "—"}</span>,
  },
  {
    key: "nodes",
    label: "Nodes",
    className: "w-[7%]",
    render: (c) => <span className="tabular-nums text-slate-600 dark:text-slate-400">{c.nodeCount ?? "—"}</span>,
  },
];

export const DEFAULT_COLUMNS = OPTIONAL_COLUMNS.filter((c) => c.defaultShown).map((c) => c.key);
