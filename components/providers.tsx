"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { z } from "zod";

// The console's Content-Security-Policy forbids eval: zod must not even probe for it (its
// compiled parsers), else every first parse logs a violation. Interpreted parsers are plenty here.
z.config({ jitless: true });

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 10_000,
            // 4xx answers are final (forbidden, not found); retrying them only delays the message.
            retry: (count, err) => count < 2 && !(err instanceof Error && "status" in err && Number(err.status) < 500),
          },
        },
      }),
  );
  // Marks the document once React has hydrated it: pages arrive with their data, so a control can
  // be on screen before it responds; the e2e fixtures wait for this mark after each navigation.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "";
  }, []);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
