"use client";

import { useEffect, useState } from "react";
import Link from "next/link";
import {
  selectionBody,
  useBulkDeregistration,
  useCancelDrainBatch,
  type BulkDeregistrationResult,
  type Selection,
} from "@/lib/client/cluster-bulk";
import { ApiRequestError } from "@/lib/client/fetch-json";
import type { SelectionBreakdown } from "@/lib/contracts/clusters";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError } from "@/components/ui/inline-error";
import { ReasonForm } from "@/components/ui/reason-dialog";
import { BulkGuardNotice, LeftOutNote } from "./bulk-guard-notice";
import { selectionText } from "./bulk-selection-text";

/** The clusters a bulk action could not act on, each with why. */
export function ResultList({ result }: { result: BulkDeregistrationResult }) {
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

const SHOWN = 6;

function Counts({ title, rows }: { title: string; rows: { label: string; count: number; muted?: boolean }[] }) {
  const rest = rows.slice(SHOWN).reduce((n, r) => n + r.count, 0);
  return (
    <div className="min-w-0">
      <dt className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">{title}</dt>
      <dd>
        <ul className="mt-1 space-y-0.5 text-sm">
          {rows.slice(0, SHOWN).map((r) => (
            <li key={r.label} className="flex justify-between gap-3">
              <span className={`break-all ${r.muted ? "text-slate-500 italic dark:text-slate-400" : "font-mono"}`}>
                {r.label}
              </span>
              <span className="tabular-nums">{r.count.toLocaleString("en-US")}</span>
            </li>
          ))}
          {rest > 0 && (
            <li className="flex justify-between gap-3 text-slate-500 dark:text-slate-400">
              <span>{rows.length - SHOWN} more</span>
              <span className="tabular-nums">{rest.toLocaleString("en-US")}</span>
            </li>
          )}
        </ul>
      </dd>
    </div>
  );
}

/** The selection by env, region and group, so a wide selection shows what it spans before it is confirmed. */
export function Breakdown({ breakdown }: { breakdown: SelectionBreakdown }) {
  const byLabel = (rows: SelectionBreakdown["env"]) =>
    rows.map((r) =>
      r.value === null ? { label: "(not set)", count: r.count, muted: true } : { label: r.value, count: r.count },
    );
  const groups = [
    ...breakdown.group.map((g) => ({ label: g.name, count: g.count })),
    ...(breakdown.ungrouped ? [{ label: "(no group)", count: breakdown.ungrouped, muted: true }] : []),
  ];
  return (
    <dl
      data-testid="bulk-drain-breakdown"
      aria-label="The selection by env, region and group"
      className="mt-3 grid grid-cols-1 gap-3 rounded-md border border-slate-200 p-3 text-slate-800 sm:grid-cols-3 dark:border-slate-700 dark:text-slate-100"
    >
      <Counts title="env" rows={byLabel(breakdown.env)} />
      <Counts title="region" rows={byLabel(breakdown.region)} />
      <Counts title="Group" rows={groups} />
    </dl>
  );
}

/** What confirms a bulk action: the count typed, or for a guarded selection the guard's sentence. */
export function confirmation(data: BulkDeregistrationResult) {
  return data.guard
    ? { confirmText: data.guard.phrase, confirmNoun: "sentence", confirmPhrase: data.guard.phrase }
    : { confirmText: String(data.matched), confirmNoun: "count" };
}

const clock = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** After a paced bulk drain: how many wait, when the last starts, and a way to cancel them. */
function QueuedDrains({ result }: { result: BulkDeregistrationResult }) {
  const cancel = useCancelDrainBatch();
  if (!result.queued || !result.batchId) return null;
  const last = result.results.reduce<string | null>((at, r) => (r.startsAt && (!at || r.startsAt > at) ? r.startsAt : at), null);
  if (cancel.data)
    return (
      <p role="status" className="text-sm" data-testid="bulk-drain-cancelled">
        Cancelled the {cancel.data.cancelled.toLocaleString("en-US")} drains that had not started.
      </p>
    );
  return (
    <div className="space-y-2 text-sm" data-testid="bulk-drain-queued">
      <p>
        {result.queued.toLocaleString("en-US")} more wait in the drain queue and start {result.startsPerMinute} a minute
        {last ? `; the last at about ${clock(last)}` : ""}.
      </p>
      <InlineError error={cancel.error} />
      <Button variant="secondary" onClick={() => cancel.mutate(result.batchId!)} disabled={cancel.isPending}>
        {cancel.isPending ? "Cancelling…" : `Cancel the ${result.queued.toLocaleString("en-US")} queued drains`}
      </Button>
    </div>
  );
}

/**
 * Starts drain-then-deregister (the wizard's first step) on the selection. It first asks the
 * server which clusters it holds (a dry run) and shows them by env, region and group; like a
 * single removal (which asks for the name) it asks for a reason and the count typed (for the whole
 * fleet or production clusters: an admin, and the sentence the server names), and the server
 * refuses when the selection no longer has that count, which asks again here. Drains start a few
 * a minute; the rest wait in the queue and can be cancelled from the result.
 */
/** A bulk action's dialog: the selection, whether the person may confirm a guarded one, and how to close. */
export type BulkDialogProps = { selection: Selection; isAdmin: boolean; onClose: () => void };

/** Whether the person may confirm a guarded selection: the server's dry run says (an admin of every cluster in it). */
export const mayConfirm = (data: BulkDeregistrationResult, isAdmin: boolean) => data.guard?.confirmable ?? isAdmin;

export function BulkDrainDialog({ selection, isAdmin, onClose }: BulkDialogProps) {
  const check = useBulkDeregistration();
  const run = useBulkDeregistration();
  const [changedFrom, setChangedFrom] = useState<number | null>(null);
  const { mutate } = check;
  useEffect(() => {
    mutate({ ...selectionBody(selection), dryRun: true });
  }, [mutate, selection]);

  const { mutate: runMutate, reset: runReset } = run;
  const data = check.data;
  const confirm = (reason: string | undefined) =>
    data &&
    runMutate(
      {
        ...selectionBody(selection),
        dryRun: false,
        reason,
        confirmCount: data.matched,
        confirmPhrase: confirmation(data).confirmPhrase,
      },
      {
        onError: (err) => {
          if (err instanceof ApiRequestError && err.code === "count_changed") {
            setChangedFrom(data.matched);
            runReset();
            mutate({ ...selectionBody(selection), dryRun: true });
          }
        },
      },
    );

  // One dialog throughout (checking, confirming, done), so focus returns to the opener at the end.
  if (run.data)
    return (
      <Dialog title="Drains started" onClose={onClose}>
        <div className="space-y-3">
          <p role="status" className="text-sm" data-testid="bulk-drain-done">
            Drain started on {run.data.started.toLocaleString("en-US")} of {run.data.matched.toLocaleString("en-US")} clusters;
            follow each in its wizard.
          </p>
          <LeftOutNote leftOut={run.data.leftOut} />
          <QueuedDrains result={run.data} />
          <ResultList result={run.data} />
        </div>
      </Dialog>
    );
  return (
    <Dialog title="Start drain-then-deregister" description={selectionText(selection)} onClose={onClose}>
      {check.isError ? (
        <InlineError error={check.error} />
      ) : !data ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">Checking which clusters can start…</p>
      ) : (
        <div className="space-y-4">
          <div className="text-sm">
            {changedFrom !== null && changedFrom !== data.matched && (
              <p role="alert" className="mb-2 font-medium text-amber-800 dark:text-amber-300">
                The selection changed from {changedFrom.toLocaleString("en-US")} to {data.matched.toLocaleString("en-US")}{" "}
                clusters since you counted; check it again.
              </p>
            )}
            <p data-testid="bulk-drain-count">
              {data.matched.toLocaleString("en-US")} cluster{data.matched === 1 ? "" : "s"} selected;{" "}
              {data.started.toLocaleString("en-US")} can start draining
              {data.startsPerMinute && data.started > data.startsPerMinute
                ? `: ${data.startsPerMinute} at once, then ${data.startsPerMinute} a minute (about ${Math.ceil(data.started / data.startsPerMinute) - 1} min in all)`
                : " now"}
              . Their workloads are evicted and each waits in its wizard for the next step.
            </p>
            {data.breakdown && <Breakdown breakdown={data.breakdown} />}
          </div>
          <LeftOutNote leftOut={data.leftOut} />
          {data.guard && <BulkGuardNotice guard={data.guard} isAdmin={mayConfirm(data, isAdmin)} />}
          <ResultList result={data} />
          {data.guard && !mayConfirm(data, isAdmin) ? (
            <div className="flex justify-end">
              <Button variant="secondary" onClick={onClose}>
                Close
              </Button>
            </div>
          ) : (
            <ReasonForm
              // A new count is a new confirmation: what was typed for the old one is cleared.
              key={data.matched}
              reasonRequired
              reasonHint="Kept in the audit log with the selection."
              confirmText={confirmation(data).confirmText}
              confirmNoun={confirmation(data).confirmNoun}
              confirmLabel={`Start drain on ${data.started.toLocaleString("en-US")} cluster${data.started === 1 ? "" : "s"}`}
              pendingLabel="Starting…"
              dismissLabel="Cancel"
              variant="danger"
              pending={run.isPending}
              error={run.error}
              onConfirm={confirm}
              onClose={onClose}
            />
          )}
        </div>
      )}
    </Dialog>
  );
}
