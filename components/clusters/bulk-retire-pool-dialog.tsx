"use client";

import { useId, useState, type FormEvent } from "react";
import { selectionBody, useBulkRetireNodePool } from "@/lib/client/cluster-bulk";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { inputClass } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { ReasonForm } from "@/components/ui/reason-dialog";
import { Breakdown, confirmation, mayConfirm, ResultList, type BulkDialogProps } from "./bulk-drain-dialog";
import { BulkGuardNotice, LeftOutNote } from "./bulk-guard-notice";
import { selectionText } from "./bulk-selection-text";

/**
 * "Retire pool X on the selection", guarded like the bulk drain: the pool named, then a dry run
 * that breaks the selection down and says per cluster why it would not retire (no such pool, not
 * Ready, its last pool); then a reason and the count typed, and the server refuses when the
 * selection no longer has that count, which asks again here.
 */
export function BulkRetirePoolDialog({ selection, isAdmin, onClose }: BulkDialogProps) {
  const id = useId();
  const check = useBulkRetireNodePool();
  const run = useBulkRetireNodePool();
  const [pool, setPool] = useState("");
  const [checked, setChecked] = useState<string | null>(null);
  const [changedFrom, setChangedFrom] = useState<number | null>(null);
  const dry = (name: string) => check.mutate({ ...selectionBody(selection), pool: name, dryRun: true });

  function submitPool(e: FormEvent) {
    e.preventDefault();
    const name = pool.trim();
    if (!name) return;
    setChecked(name);
    run.reset();
    dry(name);
  }

  const data = checked ? check.data : undefined;
  if (run.data)
    return (
      <Dialog title={`Pool ${checked} retiring`} onClose={onClose}>
        <p role="status" className="mb-2 text-sm" data-testid="bulk-retire-done">
          Pool {checked} is retiring on {run.data.started.toLocaleString("en-US")} of {run.data.matched.toLocaleString("en-US")}{" "}
          clusters.
        </p>
        <LeftOutNote leftOut={run.data.leftOut} />
        <ResultList result={run.data} />
      </Dialog>
    );
  return (
    <Dialog title="Retire a node pool on the selection" description={selectionText(selection)} onClose={onClose}>
      <div className="space-y-4">
        <form onSubmit={submitPool} className="flex flex-wrap items-end gap-2">
          <div className="min-w-0 flex-1 space-y-1.5">
            <label htmlFor={`${id}-pool`} className="block text-sm font-medium">
              Node pool name
            </label>
            <input
              id={`${id}-pool`}
              autoFocus
              autoComplete="off"
              spellCheck={false}
              value={pool}
              onChange={(e) => setPool(e.target.value)}
              className={`${inputClass} font-mono`}
            />
          </div>
          <Button type="submit" variant="secondary" disabled={!pool.trim() || check.isPending}>
            {check.isPending ? "Checking…" : "Check"}
          </Button>
        </form>
        {check.isError ? (
          <InlineError error={check.error} />
        ) : data ? (
          <>
            <div className="text-sm">
              {changedFrom !== null && changedFrom !== data.matched && (
                <p role="alert" className="mb-2 font-medium text-amber-800 dark:text-amber-300">
                  The selection changed from {changedFrom.toLocaleString("en-US")} to {data.matched.toLocaleString("en-US")}{" "}
                  clusters since you counted; check it again.
                </p>
              )}
              <p data-testid="bulk-retire-count">
                {data.matched.toLocaleString("en-US")} cluster{data.matched === 1 ? "" : "s"} selected; pool{" "}
                <strong>{checked}</strong> can retire on {data.started.toLocaleString("en-US")} of them. Its nodes are cordoned
                and drained.
              </p>
              {data.breakdown && <Breakdown breakdown={data.breakdown} />}
            </div>
            <LeftOutNote leftOut={data.leftOut} />
            {data.guard && <BulkGuardNotice guard={data.guard} isAdmin={mayConfirm(data, isAdmin)} />}
            <ResultList result={data} />
            {data.started > 0 && (mayConfirm(data, isAdmin) || !data.guard) && (
              <ReasonForm
                key={`${checked}:${data.matched}`}
                reasonRequired
                reasonHint="Kept in the audit log with the selection."
                confirmText={confirmation(data).confirmText}
                confirmNoun={confirmation(data).confirmNoun}
                confirmLabel={`Retire ${checked} on ${data.started.toLocaleString("en-US")} cluster${data.started === 1 ? "" : "s"}`}
                pendingLabel="Retiring…"
                dismissLabel="Cancel"
                variant="danger"
                pending={run.isPending}
                error={run.error}
                onConfirm={(reason) =>
                  checked &&
                  run.mutate(
                    {
                      ...selectionBody(selection),
                      pool: checked,
                      dryRun: false,
                      reason,
                      confirmCount: data.matched,
                      confirmPhrase: confirmation(data).confirmPhrase,
                    },
                    {
                      onError: (err) => {
                        if (err instanceof ApiRequestError && err.code === "count_changed") {
                          setChangedFrom(data.matched);
                          run.reset();
                          dry(checked);
                        }
                      },
                    },
                  )
                }
                onClose={onClose}
              />
            )}
          </>
        ) : null}
      </div>
    </Dialog>
  );
}
