import "server-only";
import type { Selector } from "@/lib/domain/selector";
import type { z } from "zod";
import type { ClusterListItem, exportClustersQuerySchema } from "@/lib/contracts/clusters";
import { csvRow } from "@/lib/domain/csv";
import { getSettings } from "@/lib/server/settings/settings";
import { filteredIds } from "./cluster-list-sql";
import { listItems, resolveClusterFilter } from "./list-clusters";

/** Rows read per query while streaming: memory stays flat however large the fleet. */
const BATCH = 500;
/** An export is the whole filtered fleet, but not without end. */
const EXPORT_MAX = 100_000;

const CSV_COLUMNS = [
  "id",
  "name",
  "status",
  "phase",
  "labels",
  "kubernetesVersion",
  "agentVersion",
  "nodeCount",
  "reasons",
  "lastHeartbeatAt",
  "registeredAt",
  "owner",
  "notes",
  "snoozedUntil",
  "snoozeOwner",
  "snoozeReason",
] as const;

function csvLine(c: ClusterListItem): string {
  const labels = Object.entries(c.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(";");
  return csvRow([
    c.id,
    c.name,
    c.status,
    c.phase,
    labels,
    c.kubernetesVersion,
    c.agentVersion,
    c.nodeCount,
    c.reasons.map((r) => r.code).join(";"),
    c.lastHeartbeatAt,
    c.registeredAt,
    c.owner,
    c.notes,
    c.snooze?.until ?? null,
    c.snooze?.owner ?? null,
    c.snooze?.reason ?? null,
  ]);
}

/**
 * GET /api/v1/clusters/export: every cluster the filter matches (evaluated once, when the export
 * starts), streamed in batches as CSV or a JSON array of list items; times are ISO 8601 (UTC).
 */
export async function exportClusters(
  q: z.output<typeof exportClustersQuerySchema>,
  /** the caller's teams' selectors, null for the whole fleet */
  scope: readonly Selector[] | null = null,
): Promise<Response> {
  const now = new Date();
  const settings = await getSettings();
  const filter = { ...(await resolveClusterFilter(q)), ...(scope ? { scope } : {}) };
  const ids = await filteredIds(filter, { sort: q.sort, order: q.order }, EXPORT_MAX, now, settings);
  const encoder = new TextEncoder();
  const csv = q.format === "csv";
  let at = 0;
  let written = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csv ? csvRow(CSV_COLUMNS) : "["));
    },
    async pull(controller) {
      const batch = ids.slice(at, at + BATCH);
      if (!batch.length) {
        if (!csv) controller.enqueue(encoder.encode("]\n"));
        controller.close();
        return;
      }
      const items = await listItems(batch, now, settings, scope);
      const text = csv
        ? items.map(csvLine).join("")
        : items.map((c) => `${written++ === 0 ? "" : ","}\n${JSON.stringify(c)}`).join("");
      at += batch.length;
      controller.enqueue(encoder.encode(text));
    },
  });
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  return new Response(stream, {
    headers: {
      "content-type": csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="clusters-${stamp}.${q.format}"`,
      "cache-control": "no-store",
    },
  });
}
