"use client";

import { useState } from "react";
import { Button } from "./button";

/** `disabled` with `describedBy`: the element that says why it cannot be copied yet. */
export function CopyButton({
  text,
  label = "Copy",
  disabled = false,
  describedBy,
}: {
  text: string;
  label?: string;
  disabled?: boolean;
  describedBy?: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      type="button"
      variant="secondary"
      disabled={disabled}
      aria-describedby={describedBy}
      className={disabled ? "opacity-60" : ""}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          setCopied(false);
        }
      }}
    >
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </Button>
  );
}
