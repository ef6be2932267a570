"use client";

import { useQuery } from "@tanstack/react-query";
import { labelRoutes } from "@/lib/contracts/labels";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

export type { LabelKeySummary, LabelSummary } from "@/lib/contracts/labels";

// Labels change when clusters register or are relabelled: suggestions a minute old are still
// useful, and one GROUP BY a minute per open console is nothing.
const LABELS_STALE_MS = 60_000;

/** Every label key in the fleet with its values and cluster counts (GET /api/v1/labels). */
export function useLabelSummary() {
  return useQuery({
    queryKey: queryKeys.labels,
    queryFn: ({ signal }) => fetchJson(labelRoutes.list.path, { signal, schema: labelRoutes.list.response }),
    staleTime: LABELS_STALE_MS,
  });
}
