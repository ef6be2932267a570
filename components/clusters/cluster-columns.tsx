import type { ReactNode } from "react";
import type { ListSort } from "@/lib/client/cluster-filters";
import type { ClusterListItem } from "@/lib/client/clusters";
import { CHECKLIST_LABELS } from "@/lib/domain/enrollment";
import { labelValue } from "@/lib/domain/labels";
import { RelativeTime } from "@/components/ui/relative-time";
import { ClusterReasons } from "./cluster-reasons";
import { HoverTip } from "./hover-tip";

/**
 * The cluster list's optional columns, in display order: the column chooser offers them and the
 * table renders the chosen ones. Adding a column is one entry here. Label columns (one per label
 * key the person picks) are made by labelColumn and follow in the order they were picked.
 */
export type OptionalColumn = {
  key: string;
  label: string;
  className?: string;
  /** shown until the person chooses otherwise */
  defaultShown?: boolean;
  /** rendered right after Status instead of at the end */
  besideStatus?: boolean;
  /** the header sorts the list (server-side) by this */
  sort?: ListSort;
  render: (c: ClusterListItem) => ReactNode;
};

const mono = "block truncate font-mono text-xs text-slate-600 dark:text-slate-400";
const muted = "text-slate-600 dark:text-slate-400";

/** Enrolled, or not with the checklist items holding it back (whole on hover and focus). */
export function EnrollmentCell({ c }: { c: ClusterListItem }) {
  if (c.enrolledAt)
    return (
      <span className="text-emerald-700 dark:text-emerald-400" data-enrollment="enrolled">
        Enrolled
      </span>
    );
  if (c.enrollmentBlockedOn === null)
    return (
      <span data-enrollment="unchecked">
        <HoverTip
          text="Not checked yet"
          tip="The enrollment checklist has not been evaluated for it yet."
          className={muted}
          lines={2}
        >
          Not checked yet
        </HoverTip>
      </span>
    );
  const blocked = c.enrollmentBlockedOn.map((k) => CHECKLIST_LABELS[k]);
  return (
    <span data-enrollment="blocked">
      <HoverTip
        text="Not enrolled"
        tip={blocked.length ? `Blocked on: ${blocked.join("; ")}` : undefined}
        className="text-amber-800 dark:text-amber-300"
        testId="enrollment-blocked"
        lines={2}
      >
        Not enrolled
        <span className="sr-only">, blocked on: {blocked.join("; ")}</span>
      </HoverTip>
    </span>
  );
}

/** An operator snoozed this cluster: until when, who looks after it and why (whole on hover and focus). */
function SnoozedChip({ snooze }: { snooze: NonNullable<ClusterListItem["snooze"]> }) {
  const tip = `Snoozed by ${snooze.by ?? "an operator"} until ${snooze.until}; looked after by ${snooze.owner}: ${snooze.reason}`;
  return (
    <span className="mb-0.5 block" data-testid="snoozed-chip">
      <HoverTip text={`Snoozed (${snooze.owner})`} tip={tip} className="text-xs font-medium text-violet-800 dark:text-violet-300">
        Snoozed ({snooze.owner})<span className="sr-only">: {snooze.reason}</span>
      </HoverTip>
    </span>
  );
}

export const OPTIONAL_COLUMNS: readonly OptionalColumn[] = [
  {
    // Why the cluster is not plainly healthy (lib/domain/cluster-reason.ts, worded in cluster-reasons.tsx).
    key: "reason",
    label: "Reason",
    className: "w-[18%]",
    defaultShown: true,
    besideStatus: true,
    render: (c) => (
      <>
        {c.snooze && <SnoozedChip snooze={c.snooze} />}
        <ClusterReasons reasons={c.reasons} />
      </>
    ),
  },
  {
    // Enrollment has its own column: a fleet still enrolling must not bury the reasons above.
    key: "enrollment",
    // Not "Enrollment": that names the filter, and one label must find one control.
    label: "Enrolled",
    className: "w-[10%]",
    defaultShown: true,
    besideStatus: true,
    render: (c) => <EnrollmentCell c={c} />,
  },
  {
    key: "notReadySince",
    label: "NotReady since",
    className: "w-[10%]",
    sort: "notReadySince",
    render: (c) =>
      c.notReadySince ? (
        <span className={muted}>
          <RelativeTime iso={c.notReadySince} />
        </span>
      ) : null,
  },
  {
    key: "kubernetes",
    label: "Kubernetes",
    className: "w-[9%]",
    defaultShown: true,
    sort: "kubernetesVersion",
    render: (c) => <span className={mono}>{c.kubernetesVersion ?? "unknown"}</span>,
  },
  {
    key: "agent",
    label: "Agent",
    className: "w-[7%]",
    defaultShown: true,
    sort: "agentVersion",
    render: (c) => <span className={mono}>{c.agentVersion ?? "—"}</span>,
  },
  {
    key: "region",
    label: "Region",
    className: "w-[9%]",
    render: (c) => <span className={`[overflow-wrap:anywhere] ${muted}`}>{labelValue(c.labels, "region") || "—"}</span>,
  },
  {
    // Who looks after the cluster and its notes (descriptive, set on the cluster page); the list's search finds both.
    key: "owner",
    label: "Owner and notes",
    className: "w-[14%]",
    render: (c) =>
      c.owner || c.notes ? (
        <span className="block text-xs" data-testid="cluster-owner-cell">
          {c.owner && <span className="block font-medium [overflow-wrap:anywhere]">{c.owner}</span>}
          {c.notes && (
            <HoverTip text={c.notes} className={muted} lines={2}>
              {c.notes}
            </HoverTip>
          )}
        </span>
      ) : (
        <span className={muted}>—</span>
      ),
  },
  {
    key: "nodes",
    label: "Nodes",
    className: "w-[7%]",
    // No pools reported yet is "not yet read", never 0 nodes.
    render: (c) =>
      c.nodeCount === null ? (
        <span className={muted} title="not yet read">
          —<span className="sr-only"> not yet read</span>
        </span>
      ) : (
        <span className={`tabular-nums ${muted}`}>{c.nodeCount}</span>
      ),
  },
];

export const DEFAULT_COLUMNS = OPTIONAL_COLUMNS.filter((c) => c.defaultShown).map((c) => c.key);

/** A label column's key in the column choice: `label:<label key>`. */
export const LABEL_COLUMN_PREFIX = "label:";
export const labelColumnKey = (labelKey: string) => `${LABEL_COLUMN_PREFIX}${labelKey}`;

/** A column showing one label's value (whole, wrapped), or a dash when the cluster lacks it. */
export function labelColumn(labelKey: string): OptionalColumn {
  return {
    key: labelColumnKey(labelKey),
    label: labelKey,
    className: "w-[10%]",
    render: (c) => {
      const value = labelValue(c.labels, labelKey);
      return value ? (
        <span className="font-mono text-xs [overflow-wrap:anywhere]" data-label-value={labelKey}>
          {value}
        </span>
      ) : (
        <span className={muted}>—</span>
      );
    },
  };
}

/** The chosen columns, fixed ones in their display order, then label columns in the order picked. */
export function chosenColumns(keys: readonly string[]): OptionalColumn[] {
  return [
    ...OPTIONAL_COLUMNS.filter((c) => keys.includes(c.key)),
    ...keys
      .filter((k) => k.startsWith(LABEL_COLUMN_PREFIX) && k.length > LABEL_COLUMN_PREFIX.length)
      .map((k) => labelColumn(k.slice(LABEL_COLUMN_PREFIX.length))),
  ];
}
