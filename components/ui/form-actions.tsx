"use client";

import { Button } from "@/components/ui/button";

/**
 * A dialog form's footer: a dismiss button (Cancel), and a submit button that says what it is
 * doing while pending. `disabled` holds the submit back while the form cannot be sent.
 */
export function FormActions({
  onCancel,
  pending,
  label,
  pendingLabel,
  cancelLabel = "Cancel",
  variant = "primary",
  disabled = false,
}: {
  onCancel: () => void;
  pending: boolean;
  label: string;
  pendingLabel: string;
  cancelLabel?: string;
  variant?: "primary" | "danger";
  disabled?: boolean;
}) {
  return (
    <div className="flex justify-end gap-2">
      <Button type="button" variant="secondary" onClick={onCancel}>
        {cancelLabel}
      </Button>
      <Button type="submit" variant={variant} disabled={pending || disabled}>
        {pending ? pendingLabel : label}
      </Button>
    </div>
  );
}
