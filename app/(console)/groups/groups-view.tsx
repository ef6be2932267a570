"use client";

import { useState } from "react";
import { useGroups, type ClusterGroup } from "@/lib/client/groups";
import { Button } from "@/components/ui/button";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { DeleteGroupDialog } from "@/components/groups/delete-group-dialog";
import { EXAMPLE_SELECTOR, GroupDialog } from "@/components/groups/group-dialog";
import { GroupsTable } from "@/components/groups/groups-table";

type Open =
  { kind: "none" } | { kind: "create" } | { kind: "edit"; group: ClusterGroup } | { kind: "delete"; group: ClusterGroup };

export function GroupsView({ canEdit }: { canEdit: boolean }) {
  const groups = useGroups();
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = () => setOpen({ kind: "none" });
  const newGroup = canEdit ? <Button onClick={() => setOpen({ kind: "create" })}>New group</Button> : null;

  return (
    <div className="space-y-4">
      <div className="flex min-h-9 items-center justify-between gap-4">
        <p className="text-sm text-slate-600 tabular-nums dark:text-slate-400">
          {groups.data?.length ? `${groups.data.length.toLocaleString("en-US")} group${groups.data.length === 1 ? "" : "s"}` : ""}
        </p>
        {/* When there are none, the empty state below carries the button instead. */}
        {canEdit ? (
          groups.data?.length !== 0 && newGroup
        ) : (
          <p className="text-sm text-slate-500 dark:text-slate-400">
            You can see groups; creating, editing and deleting them needs the operator role.
          </p>
        )}
      </div>

      {groups.isPending ? (
        <TableSkeleton rows={5} label="Loading cluster groups" />
      ) : groups.isError ? (
        <ErrorState title="Could not load cluster groups" message={groups.error.message} onRetry={() => void groups.refetch()} />
      ) : groups.data.length === 0 ? (
        <EmptyState title="No cluster groups yet">
          <p>A group names a set of clusters by their labels — for example every production cluster in two EU regions:</p>
          <code className="my-3 inline-block rounded bg-slate-100 px-2 py-1 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-200">
            {EXAMPLE_SELECTOR}
          </code>
          <p>Membership follows the labels: clusters join and leave as they register or are relabelled.</p>
          {newGroup && <div className="mt-4">{newGroup}</div>}
        </EmptyState>
      ) : (
        <GroupsTable
          groups={groups.data}
          canEdit={canEdit}
          onEdit={(group) => setOpen({ kind: "edit", group })}
          onDelete={(group) => setOpen({ kind: "delete", group })}
        />
      )}

      {open.kind === "create" && <GroupDialog onClose={close} />}
      {open.kind === "edit" && <GroupDialog key={open.group.id} group={open.group} onClose={close} />}
      {open.kind === "delete" && <DeleteGroupDialog group={open.group} onClose={close} />}
    </div>
  );
}
