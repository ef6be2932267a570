"use client";

import type { ReactNode } from "react";
import { CopyButton } from "@/components/ui/copy-button";

/** Text to copy (a command, a manifest) in a scrollable monospace box with its actions above. */
export function CodeBlock({
  id,
  title,
  text,
  actions,
  maxHeight = "max-h-72",
  wrap = false,
  copyLabel = `Copy ${title.toLowerCase()}`,
  blockedReason = null,
}: {
  id: string;
  title: string;
  text: string;
  actions?: ReactNode;
  maxHeight?: string;
  wrap?: boolean;
  copyLabel?: string;
  /** why the text may not be copied yet (shown beside the actions, which are then disabled), or null */
  blockedReason?: string | null;
}) {
  return (
    <section aria-labelledby={`${id}-title`} className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h3 id={`${id}-title`} className="text-sm font-semibold">
          {title}
        </h3>
        <div className="flex flex-wrap items-center justify-end gap-2">
          <CopyButton
            text={text}
            label={copyLabel}
            disabled={!!blockedReason}
            describedBy={blockedReason ? `${id}-blocked` : undefined}
          />
          {actions}
        </div>
      </div>
      {/* A blocked text is a preview: dimmed (in colours that keep it readable) and saying why, so
          nobody copies it by hand from the box. */}
      {blockedReason && (
        <p id={`${id}-blocked`} data-testid={`${id}-blocked`} className="text-xs text-amber-800 dark:text-amber-300">
          Preview only, not ready to use: {blockedReason}
        </p>
      )}
      <pre
        id={id}
        tabIndex={0}
        aria-label={blockedReason ? `${title} (preview only)` : title}
        aria-describedby={blockedReason ? `${id}-blocked` : undefined}
        data-blocked={blockedReason ? "" : undefined}
        className={`${maxHeight} overflow-auto rounded-md border p-3 font-mono text-xs leading-relaxed ${
          blockedReason
            ? "border-dashed border-amber-300 bg-slate-100 text-slate-600 dark:border-amber-800 dark:bg-slate-900 dark:text-slate-400"
            : "border-slate-200 bg-slate-50 text-slate-800 dark:border-slate-800 dark:bg-slate-950 dark:text-slate-200"
        } ${wrap ? "wrap-anywhere whitespace-pre-wrap" : ""}`}
      >
        {text}
      </pre>
    </section>
  );
}
