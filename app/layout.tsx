import type { Metadata } from "next";
import type { ReactNode } from "react";
import { headers } from "next/headers";
import { NONCE_HEADER } from "@/lib/domain/content-security-policy";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Fleet Registry", template: "%s · Fleet Registry" },
  description: "Register Kubernetes clusters and look after them for their whole life.",
};

// Runs before paint so a dark-mode user never sees a white flash.
const themeScript = `try{var t=localStorage.getItem("theme");if(t==="dark"||(!t&&matchMedia("(prefers-color-scheme: dark)").matches))document.documentElement.classList.add("dark")}catch(e){}`;

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The Content-Security-Policy runs only scripts carrying this request's nonce (proxy.ts).
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
