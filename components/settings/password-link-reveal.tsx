"use client";

import type { PasswordLink } from "@/lib/contracts/users";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { LocalTime } from "@/components/ui/local-time";

/** A set-password link shown this once: the link, how long it works, and what to do with it. */
export function PasswordLinkReveal({ email, link, onDone }: { email: string; link: PasswordLink; onDone: () => void }) {
  return (
    <div className="space-y-4">
      <p
        role="status"
        className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
      >
        Copy this link now: it is shown only once. Send it to {email} over a channel you trust; it works once, until{" "}
        <LocalTime iso={link.expiresAt} format="datetime" />. Anyone holding it can choose {email}&apos;s password.
      </p>
      <div className="space-y-1.5">
        <p className="text-sm font-medium" id="password-link-label">
          Set-password link for {email}
        </p>
        <div className="flex items-center gap-2">
          <code
            data-testid="password-link"
            aria-labelledby="password-link-label"
            className="min-w-0 flex-1 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs break-all dark:border-slate-800 dark:bg-slate-950"
          >
            {link.url}
          </code>
          <CopyButton text={link.url} label="Copy link" />
        </div>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          A newer link replaces this one. Lost it? Use “Set-password link” on their row for a new one.
        </p>
      </div>
      <div className="flex justify-end">
        <Button onClick={onDone} autoFocus>
          Done
        </Button>
      </div>
    </div>
  );
}
