import type { Selection } from "@/lib/client/cluster-bulk";

/** "3 selected clusters" or "All 312 clusters matching the current filter". */
export function selectionText(s: Selection): string {
  if (s.kind === "ids") return `${s.ids.length.toLocaleString("en-US")} selected cluster${s.ids.length === 1 ? "" : "s"}`;
  return `All ${s.capped ? "more than " : ""}${s.count.toLocaleString("en-US")} clusters matching the current filter`;
}
