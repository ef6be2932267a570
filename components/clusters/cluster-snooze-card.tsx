"use client";

import { useId, useState, type FormEvent } from "react";
import type { ClusterDetail } from "@/lib/client/clusters";
import { SNOOZE_OWNER_MAX, SNOOZE_REASON_MAX } from "@/lib/domain/cluster-snooze";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Dialog } from "@/components/ui/dialog";
import { Field, SelectField } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { InlineError } from "@/components/ui/inline-error";
import { LocalTime } from "@/components/ui/local-time";
import { textareaClass } from "@/components/ui/reason-dialog";

const HOUR = 3_600_000;
const DURATIONS = [
  { value: 1, label: "1 hour" },
  { value: 4, label: "4 hours" },
  { value: 24, label: "1 day" },
  { value: 72, label: "3 days" },
  { value: 168, label: "7 days" },
  { value: 720, label: "30 days" },
] as const;

/**
 * Silence for a known-broken cluster: while snoozed it leaves needs attention and its webhook
 * alerts stop, until the time or until its status or phase changes (lib/domain/cluster-snooze.ts).
 */
export function ClusterSnoozeCard({
  cluster,
  canEdit,
  pending,
  error,
  onSnooze,
}: {
  cluster: Pick<ClusterDetail, "name" | "owner" | "snooze">;
  canEdit: boolean;
  pending: boolean;
  error: unknown;
  onSnooze: (input: { until: string; reason: string; owner: string } | null) => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const s = cluster.snooze;
  return (
    <Card
      title="Snooze"
      action={
        canEdit ? (
          s ? (
            <Button variant="secondary" disabled={pending} onClick={() => void onSnooze(null).catch(() => {})}>
              Unsnooze
            </Button>
          ) : (
            <Button variant="secondary" id="snooze-button" onClick={() => setOpen(true)}>
              Snooze…
            </Button>
          )
        ) : null
      }
    >
      {s ? (
        <dl className="space-y-2 text-sm" data-testid="cluster-snooze">
          <div>
            <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">Snoozed until</dt>
            <dd>
              <LocalTime iso={s.until} format="datetime" />
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">Looked after by</dt>
            <dd className="break-words">{s.owner}</dd>
          </div>
          <div>
            <dt className="text-xs font-medium text-slate-500 dark:text-slate-400">Reason</dt>
            <dd className="break-words whitespace-pre-wrap">{s.reason}</dd>
          </div>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            Snoozed by {s.by ?? "an operator"}. It ends early when the cluster&apos;s status or phase changes.
          </p>
        </dl>
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="cluster-snooze">
          Not snoozed. A snoozed cluster leaves needs attention and sends no webhook alerts until the time you choose or until its
          status changes.
        </p>
      )}
      {!open && Boolean(error) && (
        <div className="mt-2">
          <InlineError error={error} />
        </div>
      )}
      {open && (
        <SnoozeDialog
          cluster={cluster}
          pending={pending}
          error={error}
          onSnooze={onSnooze}
          onClose={() => {
            setOpen(false);
            requestAnimationFrame(() => document.getElementById("snooze-button")?.focus());
          }}
        />
      )}
    </Card>
  );
}

function SnoozeDialog({
  cluster,
  pending,
  error,
  onSnooze,
  onClose,
}: {
  cluster: Pick<ClusterDetail, "name" | "owner">;
  pending: boolean;
  error: unknown;
  onSnooze: (input: { until: string; reason: string; owner: string }) => Promise<unknown>;
  onClose: () => void;
}) {
  const id = useId();
  const [hours, setHours] = useState<number>(24);
  const [owner, setOwner] = useState(cluster.owner ?? "");
  const [reason, setReason] = useState("");
  const [tried, setTried] = useState(false);
  const reasonProblem =
    reason.trim().length < 3
      ? "Say why the cluster is snoozed (at least 3 characters)."
      : reason.trim().length > SNOOZE_REASON_MAX
        ? `The reason is at most ${SNOOZE_REASON_MAX} characters.`
        : null;
  const ownerProblem = !owner.trim()
    ? "Name who looks after the cluster meanwhile."
    : owner.trim().length > SNOOZE_OWNER_MAX
      ? `The owner is at most ${SNOOZE_OWNER_MAX} characters.`
      : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    setTried(true);
    if (reasonProblem || ownerProblem) return;
    const until = new Date(Date.now() + hours * HOUR).toISOString();
    onSnooze({ until, reason: reason.trim(), owner: owner.trim() })
      .then(onClose)
      .catch(() => {});
  }

  return (
    <Dialog
      title={`Snooze ${cluster.name}`}
      description="It leaves needs attention and its webhook alerts stop until then, or until its status or phase changes. The snooze is kept in the audit log."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <SelectField id={`${id}-for`} label="Snooze for" value={hours} options={DURATIONS} onValueChange={setHours} />
        <Field
          id={`${id}-owner`}
          label="Looked after by"
          value={owner}
          onChange={(e) => setOwner(e.target.value)}
          hint="A team, a person or an on-call alias."
          error={tried ? ownerProblem : null}
        />
        <div className="space-y-1.5">
          <label htmlFor={`${id}-reason`} className="block text-sm font-medium">
            Reason
          </label>
          <textarea
            id={`${id}-reason`}
            rows={3}
            value={reason}
            autoFocus
            onChange={(e) => setReason(e.target.value)}
            aria-invalid={(tried && Boolean(reasonProblem)) || undefined}
            aria-describedby={`${id}-reason-hint`}
            className={textareaClass}
          />
          <p
            id={`${id}-reason-hint`}
            className={`text-xs ${tried && reasonProblem ? "text-rose-600 dark:text-rose-400" : "text-slate-500 dark:text-slate-400"}`}
          >
            {tried && reasonProblem ? reasonProblem : "A ticket, a vendor case, what is being done about it."}
          </p>
        </div>
        <FormActions error={error} onCancel={onClose} pending={pending} label="Snooze" pendingLabel="Snoozing…" />
      </form>
    </Dialog>
  );
}
