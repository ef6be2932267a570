"use client";

import type { ClusterGroup } from "@/lib/client/groups";
import { describeWindows } from "@/lib/domain/upgrade-windows";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import { GateCell } from "./gate-cell";
import { GroupCountsBar } from "./group-counts-bar";
import { TableHead } from "@/components/ui/table-head";
import { ScrollRegion } from "@/components/ui/scroll-region";

/** Cluster groups by name, with their selector and how many matching clusters are Ready. */
export function GroupsTable({
  groups,
  canEdit,
  onEdit,
  onDelete,
}: {
  groups: ClusterGroup[];
  canEdit: boolean;
  onEdit: (group: ClusterGroup) => void;
  onDelete: (group: ClusterGroup) => void;
}) {
  return (
    <ScrollRegion
      label="Groups table"
      className="relative rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
    >
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Cluster groups by name</caption>
        <TableHead columns={["Group", "Selector", "Clusters", "Gate", "Upgrade windows", "Updated"]} actions={canEdit} />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {groups.map((g) => (
            <tr key={g.id} data-group={g.name} className="align-middle">
              <td className="max-w-64 px-4 py-3">
                <div className="truncate font-medium">{g.name}</div>
                {g.description && (
                  <div className="truncate text-xs text-slate-500 dark:text-slate-400" title={g.description}>
                    {g.description}
                  </div>
                )}
              </td>
              <td className="max-w-80 px-4 py-3">
                <code
                  className="line-clamp-2 w-fit max-w-full rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs break-all text-slate-700 dark:bg-slate-800 dark:text-slate-300"
                  title={g.selector}
                >
                  {g.selector}
                </code>
              </td>
              <td className="px-4 py-3">
                {g.counts ? (
                  <GroupCountsBar counts={g.counts} groupId={g.id} />
                ) : (
                  // Saved before the selector limits (or otherwise unusable): shown, never evaluated.
                  <div className="w-60 space-y-1" data-testid="group-selector-error">
                    <Badge tone="red">Invalid selector</Badge>
                    <p className="text-xs text-rose-700 dark:text-rose-400">
                      {g.selectorError}. It matches no cluster until {canEdit ? "you edit" : "an operator edits"} it.
                    </p>
                  </div>
                )}
              </td>
              <td className="px-4 py-3">
                <GateCell group={g.name} usable={g.counts !== null} />
              </td>
              <td className="max-w-64 px-4 py-3 text-xs text-slate-600 dark:text-slate-400" data-testid="group-windows">
                {describeWindows({ windows: g.upgradeWindows, timeZone: g.upgradeTimeZone })}
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-slate-600 dark:text-slate-400">
                <RelativeTime iso={g.updatedAt} />
              </td>
              {canEdit && (
                <td className="px-4 py-3 text-right whitespace-nowrap">
                  <Button variant="ghost" className="h-8" onClick={() => onEdit(g)}>
                    Edit<span className="sr-only"> {g.name}</span>
                  </Button>
                  <Button variant="ghost" className="h-8 text-rose-700 dark:text-rose-400" onClick={() => onDelete(g)}>
                    Delete<span className="sr-only"> {g.name}</span>
                  </Button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
