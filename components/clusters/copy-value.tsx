"use client";

import { useState } from "react";

/**
 * A monospace value with a small copy button beside it, for identity fields where the full
 * button (components/ui/copy-button) would crowd the row. `what` names the button for screen readers.
 */
export function CopyValue({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="flex items-start gap-2">
      <span className="min-w-0 font-mono text-xs break-all">{value}</span>
      <button
        type="button"
        aria-label={`Copy ${what}`}
        title={`Copy ${what}`}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value);
            setCopied(true);
            setTimeout(() => setCopied(false), 2000);
          } catch {
            setCopied(false);
          }
        }}
        className="-mt-0.5 shrink-0 rounded px-1.5 py-0.5 text-xs font-medium text-sky-700 hover:bg-sky-50 dark:text-sky-400 dark:hover:bg-sky-950"
      >
        <span aria-live="polite">{copied ? "Copied" : "Copy"}</span>
      </button>
    </span>
  );
}
