"use client";

import { Button } from "@/components/ui/button";
import { InlineError } from "@/components/ui/inline-error";

/**
 * A dialog form's footer: the failed request's error (kept in the dialog), a dismiss button
 * (Cancel), and a submit button that says what it is doing while pending. `disabled` holds the
 * submit back while the form cannot be sent.
 */
export function FormActions({
  onCancel,
  pending,
  label,
  pendingLabel,
  cancelLabel = "Cancel",
  variant = "primary",
  disabled = false,
  error,
}: {
  onCancel: () => void;
  pending: boolean;
  label: string;
  pendingLabel: string;
  cancelLabel?: string;
  variant?: "primary" | "danger";
  disabled?: boolean;
  error?: unknown;
}) {
  return (
    <>
      {error ? <InlineError error={error} /> : null}
      <div className="flex justify-end gap-2">
        <Button type="button" variant="secondary" onClick={onCancel}>
          {cancelLabel}
        </Button>
        <Button type="submit" variant={variant} disabled={pending || disabled}>
          {pending ? pendingLabel : label}
        </Button>
      </div>
    </>
  );
}

/** A page form's save button, saying what it is doing while pending, and "Saved." once it has. */
export function SaveActions({ pending, label, saved }: { pending: boolean; label: string; saved: boolean }) {
  return (
    <div className="flex items-center gap-3">
      <Button type="submit" disabled={pending}>
        {pending ? "Saving…" : label}
      </Button>
      {saved && (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          Saved.
        </p>
      )}
    </div>
  );
}
