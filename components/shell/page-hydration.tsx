"use client";

import type { ReactNode } from "react";
import { HydrationBoundary, type DehydratedState } from "@tanstack/react-query";
import { NowProvider } from "@/components/ui/relative-time";

/**
 * A console page's first data, as openPage read it on the server: the queries for the client's
 * cache, and the instant they were read, which the page's relative times are rendered against on
 * the server and while hydrating.
 */
export function PageHydration({ state, now, children }: { state: DehydratedState; now: number; children: ReactNode }) {
  return (
    <HydrationBoundary state={state}>
      <NowProvider now={now}>{children}</NowProvider>
    </HydrationBoundary>
  );
}
