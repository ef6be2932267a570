"use client";

import { useDeleteGroup, type ClusterGroup } from "@/lib/client/groups";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** Confirms deleting a group; the clusters in it are not touched. */
export function DeleteGroupDialog({ group, onClose }: { group: ClusterGroup; onClose: () => void }) {
  const remove = useDeleteGroup();
  return (
    <Dialog
      title={`Delete group “${group.name}”?`}
      description={
        <>
          Its {group.counts.total.toLocaleString()} cluster{group.counts.total === 1 ? "" : "s"} stay registered and keep their
          labels; only the grouping goes away. Pipelines that ask for <code className="font-mono">?group={group.name}</code> will
          get “not found”.
        </>
      }
      onClose={onClose}
    >
      {remove.isError && (
        <p
          role="alert"
          className="mb-4 rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
        >
          {remove.error.message}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose} autoFocus>
          Cancel
        </Button>
        <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(group.id, { onSuccess: onClose })}>
          {remove.isPending ? "Deleting…" : "Delete group"}
        </Button>
      </div>
    </Dialog>
  );
}
