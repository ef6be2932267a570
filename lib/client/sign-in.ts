import { getCsrfToken } from "next-auth/react";
import { tooManyAttemptsMessage } from "@/lib/domain/login-throttle";

export type SignInResult = { ok: true } | { ok: false; error: string | null; message: string | null };

/**
 * A password sign-in through next-auth's credentials endpoint, as next-auth's own signIn() does,
 * but keeping what signIn() drops: a 429's Retry-After, for the form's "try again in N seconds".
 */
export async function signInWithPassword(email: string, password: string): Promise<SignInResult> {
  const csrfToken = await getCsrfToken();
  if (!csrfToken) return { ok: false, error: null, message: "The server could not be reached." };
  const res = await fetch("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: "/", json: "true" }),
    credentials: "same-origin",
  });
  if (res.status === 429) {
    const seconds = Number(res.headers.get("retry-after"));
    return { ok: false, error: "rate_limited", message: tooManyAttemptsMessage(seconds > 0 ? seconds : 1) };
  }
  const data = (await res.json().catch(() => null)) as { url?: string } | null;
  let error: string | null = null;
  try {
    error = data?.url ? new URL(data.url, window.location.origin).searchParams.get("error") : "Unknown";
  } catch {
    error = "Unknown";
  }
  return res.ok && !error ? { ok: true } : { ok: false, error: error ?? "Unknown", message: null };
}
