"use client";

import { useState } from "react";
import { usePolicies, type Policy } from "@/lib/client/policies";
import { Button } from "@/components/ui/button";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { CreatePolicyDialog } from "@/components/policies/policy-dialog";
import { DeletePolicyDialog } from "@/components/policies/delete-policy-dialog";
import { PoliciesTable } from "@/components/policies/policies-table";
import { PolicyTargetsDialog } from "@/components/policies/policy-targets-dialog";
import { PublishRevisionDialog } from "@/components/policies/publish-revision-dialog";

type Open =
  | { kind: "none" }
  | { kind: "create" }
  | { kind: "publish"; policy: Policy }
  | { kind: "edit"; policy: Policy }
  | { kind: "delete"; policy: Policy };

export function PoliciesView({ canEdit }: { canEdit: boolean }) {
  const policies = usePolicies();
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = () => setOpen({ kind: "none" });
  const newPolicy = canEdit ? <Button onClick={() => setOpen({ kind: "create" })}>New policy</Button> : null;

  return (
    <div className="space-y-4">
      <div className="flex min-h-9 items-center justify-between gap-4">
        <p className="text-sm text-slate-600 tabular-nums dark:text-slate-400">
          {policies.data
            ? `${policies.data.length.toLocaleString("en-US")} polic${policies.data.length === 1 ? "y" : "ies"}`
            : " "}
        </p>
        {canEdit ? (
          policies.data?.length !== 0 && newPolicy
        ) : (
          <p className="text-sm text-slate-500 dark:text-slate-400">
            You can read policies; creating, publishing and deleting them needs the operator role.
          </p>
        )}
      </div>

      {policies.isPending ? (
        <TableSkeleton rows={5} label="Loading policies" />
      ) : policies.isError ? (
        <ErrorState title="Could not load policies" message={policies.error.message} onRetry={() => void policies.refetch()} />
      ) : policies.data.length === 0 ? (
        <EmptyState title="No policies yet">
          <p>
            A policy is a JSON document the agents apply — pod security, default-deny networking, log shipping — published in
            numbered revisions to the clusters of its target groups.
          </p>
          {newPolicy && <div className="mt-4">{newPolicy}</div>}
        </EmptyState>
      ) : (
        <PoliciesTable
          policies={policies.data}
          canEdit={canEdit}
          onPublish={(policy) => setOpen({ kind: "publish", policy })}
          onEdit={(policy) => setOpen({ kind: "edit", policy })}
          onDelete={(policy) => setOpen({ kind: "delete", policy })}
        />
      )}

      {open.kind === "create" && <CreatePolicyDialog onClose={close} />}
      {open.kind === "publish" && <PublishRevisionDialog key={open.policy.id} policy={open.policy} onClose={close} />}
      {open.kind === "edit" && <PolicyTargetsDialog key={open.policy.id} policy={open.policy} onClose={close} />}
      {open.kind === "delete" && <DeletePolicyDialog policy={open.policy} onClose={close} />}
    </div>
  );
}
