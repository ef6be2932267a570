"use client";

import { signIn } from "next-auth/react";
import { useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { signInWithPassword } from "@/lib/client/sign-in";

const MESSAGES: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  OAuthSignin: "Could not reach the single sign-on provider.",
  OAuthCallback: "Single sign-on did not complete. Try again.",
  AccessDenied: "This account is not allowed to sign in.",
  // Single sign-on refusals (lib/server/auth/oidc-sign-in.ts, SSO_REFUSALS).
  SsoAccountDisabled: "This account is disabled. Ask an admin of Fleet Registry to enable it.",
  SsoEmailNotVerified:
    "The single sign-on provider did not verify this email, which belongs to an existing account; sign in with its password or ask an admin.",
  SsoEmailLinked:
    "This email belongs to an account another single sign-on identity signs in to; sign in as that identity or ask an admin.",
  SsoNoRole: "Your single sign-on groups give you no access to Fleet Registry. Ask an admin to add you to a mapped group.",
  SsoLastAdminUnmapped:
    "This account is the last admin, and your single sign-on groups would not keep it one; sign in with its password, or ask for the role mapping to include you.",
};

export function LoginForm({ oidcName }: { oidcName: string | null }) {
  const router = useRouter();
  const params = useSearchParams();
  const initial = params.get("error");
  const [error, setError] = useState<string | null>(initial ? (MESSAGES[initial] ?? "Sign-in failed. Try again.") : null);
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
        !res ? "The server could not be reached." : (res.message ?? MESSAGES[res.error ?? ""] ?? "Sign-in failed. Try again."),
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
