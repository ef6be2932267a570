"use client";

import { ErrorState } from "@/components/ui/states";

export default function ConsoleError({ reset }: { error: Error; reset: () => void }) {
  return <ErrorState title="This page failed to load" message="The server had a problem; it has been logged." onRetry={reset} />;
}
