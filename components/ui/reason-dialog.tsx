"use client";

import { useId, useState, type FormEvent, type ReactNode } from "react";
import { Dialog } from "./dialog";
import { FieldError } from "./field-error";
import { inputClass } from "./field";
import { FormActions } from "./form-actions";

export const textareaClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-slate-400 focus:border-sky-500 dark:border-slate-700 dark:bg-slate-950 aria-[invalid=true]:border-rose-500";

/**
 * A confirmation that records why: for skipping a wait (force), cancelling, aborting, removing.
 * With `reasonRequired` the reason cannot be blank (the server refuses force without one too);
 * with `confirmText` (a cluster's name, or how many clusters) it must be typed exactly before the action runs.
 */
export function ReasonDialog({
  title,
  description,
  onClose,
  ...form
}: { title: string; description: ReactNode } & Parameters<typeof ReasonForm>[0]) {
  return (
    <Dialog title={title} description={description} onClose={onClose}>
      <ReasonForm {...form} onClose={onClose} />
    </Dialog>
  );
}

/** ReasonDialog's form, for a dialog that shows more around it (e.g. a check before it). */
export function ReasonForm({
  reasonLabel = "Reason",
  reasonHint,
  reasonRequired,
  confirmText,
  confirmNoun = "name",
  confirmLabel,
  pendingLabel,
  dismissLabel = "Back",
  variant = "primary",
  pending,
  error,
  onConfirm,
  onClose,
}: {
  reasonLabel?: string;
  reasonHint?: string;
  reasonRequired: boolean;
  /** what must be typed to confirm, e.g. the name of what is removed */
  confirmText?: string;
  /** what confirmText is, for the mistyped message ("name", "count") */
  confirmNoun?: string;
  confirmLabel: string;
  pendingLabel: string;
  dismissLabel?: string;
  variant?: "primary" | "danger";
  pending: boolean;
  /** the failed request's error, shown in the dialog */
  error: unknown;
  onConfirm: (reason: string | undefined) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [reason, setReason] = useState("");
  const [missing, setMissing] = useState(false);
  const [typed, setTyped] = useState("");
  const [mistyped, setMistyped] = useState(false);

  function submit(e: FormEvent) {
    e.preventDefault();
    const text = reason.trim();
    const nameWrong = confirmText !== undefined && typed.trim() !== confirmText;
    setMistyped(nameWrong);
    setMissing(reasonRequired && !text);
    if (nameWrong || (reasonRequired && !text)) return;
    onConfirm(text || undefined);
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      {confirmText !== undefined && (
        <div className="space-y-1.5">
          <label htmlFor={`${id}-confirm`} className="block text-sm font-medium">
            Type <span className="font-mono font-semibold">{confirmText}</span> to confirm
          </label>
          <input
            id={`${id}-confirm`}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            value={typed}
            onChange={(e) => {
              setTyped(e.target.value);
              setMistyped(false);
            }}
            aria-invalid={mistyped || undefined}
            aria-describedby={mistyped ? `${id}-confirm-error` : undefined}
            className={`${inputClass} font-mono`}
          />
          <FieldError
            id={`${id}-confirm-error`}
            message={mistyped ? `Type the ${confirmNoun} exactly as shown (${confirmText}) to confirm.` : null}
          />
        </div>
      )}
      <div className="space-y-1.5">
        <label htmlFor={`${id}-reason`} className="block text-sm font-medium">
          {reasonLabel}
          {!reasonRequired && <span className="font-normal text-slate-500 dark:text-slate-400"> (optional)</span>}
        </label>
        <textarea
          id={`${id}-reason`}
          rows={3}
          maxLength={300}
          autoFocus={confirmText === undefined}
          required={reasonRequired}
          value={reason}
          onChange={(e) => {
            setReason(e.target.value);
            setMissing(false);
          }}
          aria-invalid={missing || undefined}
          aria-describedby={
            [reasonHint ? `${id}-hint` : null, missing ? `${id}-error` : null].filter(Boolean).join(" ") || undefined
          }
          className={textareaClass}
        />
        {reasonHint && (
          <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
            {reasonHint}
          </p>
        )}
        {missing && (
          <p id={`${id}-error`} className="text-xs text-rose-600 dark:text-rose-400">
            Say why; the reason is kept in the audit log.
          </p>
        )}
      </div>
      <FormActions
        error={error}
        onCancel={onClose}
        cancelLabel={dismissLabel}
        variant={variant}
        pending={pending}
        label={confirmLabel}
        pendingLabel={pendingLabel}
      />
    </form>
  );
}
