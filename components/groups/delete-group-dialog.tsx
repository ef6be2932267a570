"use client";

import { useDeleteGroup, type ClusterGroup } from "@/lib/client/groups";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Confirms deleting a group; the clusters in it are not touched. */
export function DeleteGroupDialog({ group, onClose }: { group: ClusterGroup; onClose: () => void }) {
  const remove = useDeleteGroup();
  return (
    <ConfirmDialog
      title={`Delete group “${group.name}”?`}
      description={
        <>
          {group.counts
            ? `Its ${group.counts.total.toLocaleString("en-US")} cluster${group.counts.total === 1 ? "" : "s"}`
            : "Its clusters"}{" "}
          stay registered and keep their labels; only the grouping goes away. Pipelines that ask for{" "}
          <code className="font-mono">?group={group.name}</code> will get “not found”.
        </>
      }
      confirmLabel="Delete group"
      pendingLabel="Deleting…"
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate(group.id, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
