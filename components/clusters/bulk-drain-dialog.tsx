"use client";

import { useEffect, useState, type FormEvent } from "react";
import Link from "next/link";
import { selectionBody, useBulkDeregistration, type BulkDeregistrationResult, type Selection } from "@/lib/client/cluster-bulk";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { InlineError } from "@/components/ui/inline-error";
import { selectionText } from "./bulk-selection-text";

function ResultList({ result }: { result: BulkDeregistrationResult }) {
  const failed = result.results.filter((r) => !r.ok);
  if (!failed.length) return null;
  return (
    <ul className="max-h-40 list-disc overflow-auto pl-5 text-xs text-slate-600 dark:text-slate-400">
      {failed.map((r) => (
        <li key={r.id}>
          <Link href={`/clusters/${r.id}`} className="text-sky-700 underline dark:text-sky-400">
            {r.name}
          </Link>
          : {r.message ?? r.error}
        </li>
      ))}
    </ul>
  );
}

/**
 * Starts drain-then-deregister (the wizard's first step) on the selection. It first asks the
 * server which clusters can start (a dry run), shows the count to confirm, then reports each one.
 */
export function BulkDrainDialog({ selection, onClose }: { selection: Selection; onClose: () => void }) {
  const check = useBulkDeregistration();
  const run = useBulkDeregistration();
  const [reason, setReason] = useState("");
  const { mutate } = check;
  useEffect(() => {
    mutate({ ...selectionBody(selection), dryRun: true });
  }, [mutate, selection]);

  if (run.data)
    return (
      <Dialog title="Drains started" onClose={onClose}>
        <p role="status" className="mb-2 text-sm" data-testid="bulk-drain-done">
          Drain started on {run.data.started.toLocaleString()} of {run.data.matched.toLocaleString()} clusters; follow each in its
          wizard.
        </p>
        <ResultList result={run.data} />
      </Dialog>
    );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    run.mutate({ ...selectionBody(selection), dryRun: false, ...(reason.trim() ? { reason: reason.trim() } : {}) });
  };
  const can = check.data?.started ?? 0;
  return (
    <Dialog title="Start drain-then-deregister" description={selectionText(selection)} onClose={onClose}>
      {check.isError ? (
        <InlineError error={check.error} />
      ) : !check.data ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">Checking which clusters can start…</p>
      ) : (
        <form onSubmit={submit} className="space-y-4">
          <p className="text-sm" data-testid="bulk-drain-count">
            {can.toLocaleString()} of {check.data.matched.toLocaleString()} clusters can start draining now; their workloads are
            evicted and each waits in its wizard for the next step.
          </p>
          <ResultList result={check.data} />
          <Field
            id="bulk-drain-reason"
            label="Reason (optional)"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={500}
          />
          <FormActions
            onCancel={onClose}
            pending={run.isPending}
            label={`Start drain on ${can.toLocaleString()} cluster${can === 1 ? "" : "s"}`}
            pendingLabel="Starting…"
            variant="danger"
            disabled={can === 0}
            error={run.error}
          />
        </form>
      )}
    </Dialog>
  );
}
