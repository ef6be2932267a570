import type { Metadata } from "next";
import { SetPasswordForm } from "./set-password-form";

export const metadata: Metadata = { title: "Choose your password", referrer: "no-referrer" };

/** Where a one-time set-password link lands; the link's secret is in the URL's fragment, read by the form. */
export default function SetPasswordPage() {
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm">
        <div className="mb-8 text-center">
          <span aria-hidden className="mx-auto mb-3 block h-10 w-10 rounded-lg bg-gradient-to-br from-sky-500 to-indigo-600" />
          <h1 className="text-xl font-semibold tracking-tight">Choose your password</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            An admin added you to Fleet Registry. The link works once.
          </p>
        </div>
        <SetPasswordForm />
      </div>
    </main>
  );
}
