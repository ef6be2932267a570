import "server-only";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";

// Audit entries leave the database only through this archive: before a batch is deleted its rows
// are appended, one JSON object a line, to <data dir>/audit-archive/<YYYY-MM>.jsonl (the month of
// each entry, UTC) and fsync'd; the delete commits after that. A crash between the two leaves the
// rows in the database and they are archived again on the next run, so a line may repeat (same
// id); it is never missing.

export const AUDIT_ARCHIVE_DIR = "audit-archive";

export type ArchivedAuditEntry = {
  id: number;
  at: Date;
  actorType: string;
  actorId: string | null;
  actorLabel: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  /** the stored JSON text */
  details: string;
};

/** The archive file an entry belongs in: its month, UTC. */
export function archiveFileName(at: Date): string {
  return `${at.toISOString().slice(0, 7)}.jsonl`;
}

/** One line: the row's columns, `details` parsed back into JSON (kept as text if it does not parse). */
export function archiveLine(e: ArchivedAuditEntry): string {
  let details: unknown = e.details;
  try {
    details = JSON.parse(e.details);
  } catch {}
  return (
    JSON.stringify({
      id: e.id,
      at: e.at.toISOString(),
      actorType: e.actorType,
      actorId: e.actorId,
      actorLabel: e.actorLabel,
      action: e.action,
      targetType: e.targetType,
      targetId: e.targetId,
      details,
    }) + "\n"
  );
}

/** Appends the entries to their month's file and returns once they are on disk. */
export async function appendToArchive(dataDir: string, entries: readonly ArchivedAuditEntry[]): Promise<void> {
  if (!entries.length) return;
  const dir = path.join(dataDir, AUDIT_ARCHIVE_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const byFile = new Map<string, string[]>();
  for (const e of [...entries].sort((a, b) => a.id - b.id)) {
    const name = archiveFileName(e.at);
    const lines = byFile.get(name) ?? [];
    lines.push(archiveLine(e));
    byFile.set(name, lines);
  }
  for (const [name, lines] of byFile) {
    // The audit log names people and clusters: owner-only like the rest of the data dir.
    const file = await open(path.join(dir, name), "a", 0o600);
    try {
      await file.appendFile(lines.join(""));
      await file.sync();
    } finally {
      await file.close();
    }
  }
  // A new file's name must survive a crash too: sync the directory that holds it.
  const folder = await open(dir, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
