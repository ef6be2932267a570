import "server-only";
import type { AuditFilter } from "@/lib/contracts/audit";
import { csvRow } from "@/lib/domain/csv";
import { db } from "@/lib/server/db/client";
import { auditEntries, auditWhere, type AuditReach } from "./list-audit";

const HEADER = ["id", "at", "actor_type", "actor", "action", "target_type", "target_id", "target_name", "details"];
// Read in pages so an export of a long incident holds one page in memory at a time.
const BATCH = 500;
// Past this the filter is too wide to review in a spreadsheet; the last row says so.
export const MAX_EXPORT_ROWS = 100_000;

/**
 * The entries matching `filter`, newest first, as CSV (ISO 8601 times in UTC, JSON details),
 * streamed page by page. The filter is evaluated once, when the export starts.
 */
export async function exportAudit(filter: AuditFilter, reach: AuditReach = null): Promise<ReadableStream<Uint8Array>> {
  const where = await auditWhere(filter, reach);
  const encoder = new TextEncoder();
  let cursor: number | null = null;
  let sent = 0;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvRow(HEADER)));
        return;
      }
      const rows = await db().auditLog.findMany({
        where: cursor === null ? where : { AND: [where, { id: { lt: cursor } }] },
        orderBy: { id: "desc" },
        take: Math.min(BATCH, MAX_EXPORT_ROWS - sent),
      });
      const entries = await auditEntries(rows);
      controller.enqueue(
        encoder.encode(
          entries
            .map((e) =>
              csvRow([
                e.id,
                e.at,
                e.actorType,
                e.actor,
                e.action,
                e.targetType,
                e.targetId,
                e.targetName,
                JSON.stringify(e.details),
              ]),
            )
            .join(""),
        ),
      );
      sent += rows.length;
      cursor = rows.at(-1)?.id ?? cursor;
      if (rows.length < BATCH || sent >= MAX_EXPORT_ROWS) {
        if (sent >= MAX_EXPORT_ROWS) {
          controller.enqueue(encoder.encode(csvRow([`truncated at ${MAX_EXPORT_ROWS} rows: narrow the filter`])));
        }
        controller.close();
      }
    },
  });
}

/** A file name that says what the export holds: audit-2026-12-01T08-14-03Z.csv. */
export function exportFileName(now = new Date()): string {
  return `audit-${now
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replace(/:/g, "-")}.csv`;
}
