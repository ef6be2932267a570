import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { env } from "@/lib/env";
import { currentPrincipal } from "@/lib/server/auth/page-auth";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage() {
  if (await currentPrincipal()) redirect("/");
  const oidc = env().oidc;
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm">
        <div className="mb-8 text-center">
          <span aria-hidden className="mx-auto mb-3 block h-10 w-10 rounded-lg bg-gradient-to-br from-sky-500 to-indigo-600" />
          <h1 className="text-xl font-semibold tracking-tight">Sign in to Fleet Registry</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">Register and look after your Kubernetes clusters.</p>
        </div>
        <LoginForm oidcName={oidc?.name ?? null} />
      </div>
    </main>
  );
}
