"use client";

import { signIn } from "next-auth/react";
import { useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { signInWithPassword } from "@/lib/client/sign-in";
import { SIGN_IN_ERROR_MESSAGES, UNKNOWN_SIGN_IN_ERROR } from "@/lib/domain/sign-in-errors";

export function LoginForm({ oidcName }: { oidcName: string | null }) {
  const router = useRouter();
  const params = useSearchParams();
  const initial = params.get("error");
  const [error, setError] = useState<string | null>(initial ? (SIGN_IN_ERROR_MESSAGES[initial] ?? UNKNOWN_SIGN_IN_ERROR) : null);
  const [pending, setPending] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setPending(true);
    setError(null);
    const res = await signInWithPassword(String(form.get("email") ?? ""), String(form.get("password") ?? "")).catch(() => null);
    if (!res || !res.ok) {
      setPending(false);
      setError(
        !res
          ? "The server could not be reached."
          : (res.message ?? SIGN_IN_ERROR_MESSAGES[res.error ?? ""] ?? UNKNOWN_SIGN_IN_ERROR),
      );
      return;
    }
    router.replace("/");
    router.refresh();
  }

  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        {error && (
          <p
            role="alert"
            className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
          >
            {error}
          </p>
        )}
        <Field id="email" name="email" label="Email" type="email" autoComplete="username" required autoFocus />
        <Field id="password" name="password" label="Password" type="password" autoComplete="current-password" required />
        <Button type="submit" className="w-full" disabled={pending}>
          {pending ? "Signing in…" : "Sign in"}
        </Button>
      </form>
      {oidcName && (
        <>
          <div className="my-4 flex items-center gap-3 text-xs text-slate-500">
            <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" /> or{" "}
            <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
          </div>
          <Button type="button" variant="secondary" className="w-full" onClick={() => void signIn("oidc", { callbackUrl: "/" })}>
            Continue with {oidcName}
          </Button>
        </>
      )}
    </div>
  );
}
