"use client";

import Link from "next/link";
import { useEffect, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { ApiRequestError, fetchJson } from "@/lib/client/fetch-json";
import { passwordLinkTokenSchema, passwordSchema } from "@/lib/domain/users";

type Link =
  | { state: "checking" }
  | { state: "invalid"; message: string }
  | { state: "ready"; token: string; email: string; expiresAt: string }
  | { state: "done"; email: string };

const BROKEN = "This address is not a whole set-password link. Copy the link again, all of it, or ask an admin for a new one.";

/** Whom a link is for, or why it does not work. */
async function inspect(token: string): Promise<Link> {
  if (!passwordLinkTokenSchema.safeParse(token).success) return { state: "invalid", message: BROKEN };
  try {
    const who = await fetchJson<{ email: string; expiresAt: string }>("/api/auth/set-password/check", {
      method: "POST",
      body: { token },
    });
    return { state: "ready", token, ...who };
  } catch (err) {
    return { state: "invalid", message: err instanceof ApiRequestError ? err.message : "The server could not be reached." };
  }
}

/** Reads the link's secret from the fragment (never sent to a server), names the person, sets the password once. */
export function SetPasswordForm() {
  const [link, setLink] = useState<Link>({ state: "checking" });
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  useEffect(() => {
    const token = window.location.hash.slice(1);
    // The secret leaves the address bar and the history as soon as it is read.
    window.history.replaceState(null, "", window.location.pathname);
    void inspect(token).then(setLink);
  }, []);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (link.state !== "ready") return;
    const form = new FormData(e.currentTarget);
    const password = String(form.get("password") ?? "");
    const parsed = passwordSchema.safeParse(password);
    if (!parsed.success) return setError(`The password ${parsed.error.issues[0]?.message ?? "is not valid"}.`);
    if (password !== String(form.get("confirm") ?? "")) return setError("The two passwords differ.");
    setPending(true);
    setError(null);
    try {
      await fetchJson("/api/auth/set-password", { method: "POST", body: { token: link.token, password } });
      setLink({ state: "done", email: link.email });
    } catch (err) {
      setPending(false);
      if (err instanceof ApiRequestError && err.code === "password_link_invalid")
        setLink({ state: "invalid", message: err.message });
      else setError(err instanceof ApiRequestError ? err.message : "The server could not be reached.");
    }
  }

  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
      {link.state === "checking" && (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Checking the link…
        </p>
      )}
      {link.state === "invalid" && (
        <div className="space-y-4">
          <p
            role="alert"
            className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
          >
            {link.message}
          </p>
          <Link href="/login" className="text-sm font-medium text-sky-700 underline dark:text-sky-400">
            Go to sign in
          </Link>
        </div>
      )}
      {link.state === "done" && (
        <div className="space-y-4">
          <p role="status" className="text-sm text-slate-700 dark:text-slate-300">
            Your password is set. Sign in as <strong>{link.email}</strong>.
          </p>
          <Link href="/login" className="text-sm font-medium text-sky-700 underline dark:text-sky-400">
            Sign in
          </Link>
        </div>
      )}
      {link.state === "ready" && (
        <form onSubmit={onSubmit} className="space-y-4" noValidate>
          {error && (
            <p
              role="alert"
              className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
            >
              {error}
            </p>
          )}
          <Field id="email" name="email" label="Email" type="email" autoComplete="username" value={link.email} readOnly />
          <Field
            id="password"
            name="password"
            label="New password"
            type="password"
            autoComplete="new-password"
            hint="At least 12 characters."
            required
            autoFocus
          />
          <Field id="confirm" name="confirm" label="Repeat the password" type="password" autoComplete="new-password" required />
          <Button type="submit" className="w-full" disabled={pending}>
            {pending ? "Saving…" : "Set password"}
          </Button>
        </form>
      )}
    </div>
  );
}
