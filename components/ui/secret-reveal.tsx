"use client";

import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";

/**
 * A secret shown this once (an API key, a webhook's signing secret): the warning, the value with
 * a copy button, how to use it, and the button that closes it for good.
 */
export function SecretReveal({
  notice,
  label,
  secret,
  copyLabel,
  testId,
  usageLabel,
  usage,
  onDone,
}: {
  notice: string;
  label: string;
  secret: string;
  copyLabel: string;
  testId: string;
  usageLabel: string;
  usage: string;
  onDone: () => void;
}) {
  const labelId = `${testId}-label`;
  return (
    <div className="space-y-4">
      <p
        role="status"
        className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
      >
        {notice}
      </p>
      <div className="space-y-1.5">
        <p className="text-sm font-medium" id={labelId}>
          {label}
        </p>
        <div className="flex items-center gap-2">
          <code
            data-testid={testId}
            aria-labelledby={labelId}
            className="min-w-0 flex-1 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs break-all dark:border-slate-800 dark:bg-slate-950"
          >
            {secret}
          </code>
          <CopyButton text={secret} label={copyLabel} />
        </div>
      </div>
      <div className="space-y-1.5">
        <p className="text-xs text-slate-600 dark:text-slate-400">{usageLabel}</p>
        <pre className="overflow-x-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs leading-relaxed dark:border-slate-800 dark:bg-slate-950">
          {usage}
        </pre>
      </div>
      <div className="flex justify-end">
        <Button onClick={onDone} autoFocus>
          I have copied it
        </Button>
      </div>
    </div>
  );
}
